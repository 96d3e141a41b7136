import { request as httpRequest, type Agent, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import * as k8s from "./kube-client.js";
import { BoundExceededError } from "./bounded-fetch.js";
import { KubeAgentPool } from "./kube-agents.js";

/** The answer's headers as the generated client reads them: lower-case names, one string each. */
function headersOf(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The request body as bytes on the wire; the calls kintsugi makes send JSON text or nothing. */
function bodyOf(request: k8s.RequestContext): string | undefined {
  const body = request.getBody();
  if (body === undefined || typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new Error("a multipart request body is not supported");
}

/**
 * The client library's HTTP layer with a bound on every answer: the library's own (node-fetch) reads a body of any
 * size into memory, so one huge NodeList could exhaust kintsugi's. An answer declared or found to be larger than
 * `maxBytes` fails with {@link BoundExceededError} and its connection is closed as soon as the bound is crossed.
 * The request's signal (timeout, caller's abort) applies as in the library's; its agent (TLS, proxy) is swapped for a
 * kept keep-alive one with the same options ({@link KubeAgentPool}). A refused answer's connection is destroyed, never
 * given back for the next request to read the rest of it.
 */
export class BoundedKubeHttp implements k8s.HttpLibrary {
  private readonly agents = new KubeAgentPool();

  constructor(private readonly maxBytes: number) {}

  send(request: k8s.RequestContext): k8s.Observable<k8s.ResponseContext> {
    return new k8s.Observable(this.sendBounded(request));
  }

  private sendBounded(request: k8s.RequestContext): Promise<k8s.ResponseContext> {
    const agent = this.agents.agentFor(request.getAgent());
    return this.sendOnce(request, agent, false);
  }

  /**
   * One attempt. A kept connection the server closed while it was idle fails as soon as the request is written
   * (ECONNRESET, no answer): the server never read it, so it is sent once more on a new connection, as Go's
   * transport does (net/http: errServerClosedIdle). Every other failure is the call's.
   */
  private sendOnce(request: k8s.RequestContext, agent: Agent | undefined, retried: boolean): Promise<k8s.ResponseContext> {
    const url = new URL(request.getUrl());
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const body = bodyOf(request);
    const signal = request.getSignal();
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = send(url, { method: request.getHttpMethod(), headers: request.getHeaders(), ...(agent && { agent }), ...(signal && { signal }) }, (res) => {
        answered = true;
        const refuse = (error: Error) => {
          req.destroy();
          reject(error);
        };
        const declared = Number(res.headers["content-length"] ?? NaN);
        if (declared > this.maxBytes) {
          refuse(new BoundExceededError(`the answer is ${declared} bytes, more than the ${this.maxBytes} allowed (kubernetes.max_response_bytes)`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > this.maxBytes)
            refuse(new BoundExceededError(`the answer is larger than the ${this.maxBytes} bytes allowed (kubernetes.max_response_bytes)`));
          else chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          const data = Buffer.concat(chunks);
          resolve(new k8s.ResponseContext(res.statusCode ?? 0, headersOf(res), new k8s.SelfDecodingBody(Promise.resolve(data))));
        });
      });
      // Worded as the library's own HTTP layer words it, so messages and what matches them stay as they were.
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (!retried && !answered && req.reusedSocket && error.code === "ECONNRESET" && !signal?.aborted) {
          resolve(this.sendOnce(request, agent, true));
          return;
        }
        reject(new Error(`request to ${url.href} failed, reason: ${error.message}`, { cause: error }));
      });
      req.end(body);
    });
  }
}
