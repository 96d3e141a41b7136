import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statusReply, type KubeObject, type Reply } from "./fake-kube-api-objects.js";
import { FakeKubeRoutes } from "./fake-kube-api-routes.js";
import { KubeCallRecorder } from "./fake-kube-api-calls.js";
import { testServerCertificate, type TestServerCertificate } from "./test-ca.js";

export type { FakeNodeSpec, FakePod, FakePodSpec, RecordedEviction } from "./fake-kube-api-state.js";
export type { KubeObject } from "./fake-kube-api-objects.js";

/** One request as the fake received it (also the ones answered by an injected failure). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly contentType: string | null;
}

/** Options of {@link FakeKubeApi.failNextRequests}. */
export interface FaultOptions {
  /** Only requests with this method, e.g. `PATCH`. */
  readonly method?: string;
  /** The Status message. */
  readonly message?: string;
}

interface Fault {
  readonly pattern: RegExp;
  readonly method: string | null;
  readonly status: number;
  readonly message: string;
  remaining: number;
}

/** Writes a kubeconfig whose current context is the server at `url` over HTTPS, trusting `caPem`, with a token. */
export function writeTestKubeconfig(path: string, url: string, caPem: string): void {
  writeFileSync(path, testKubeconfig(url, caPem));
}

/** The text of {@link writeTestKubeconfig}'s kubeconfig. */
export function testKubeconfig(url: string, caPem: string): string {
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "fake", cluster: { server: url, "certificate-authority-data": Buffer.from(caPem).toString("base64") } }],
    // kubectl asks for a username and password on an https server when the user has no credentials at all. The
    // fake accepts any request, so the token is never checked.
    users: [{ name: "fake", user: { token: "kintsugi-test-token" } }],
    contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
    "current-context": "fake",
  };
  return JSON.stringify(kubeconfig, null, 2);
}

/**
 * A Kubernetes API server in memory, on a real HTTPS port of 127.0.0.1, for the real client library and kubectl. As
 * a real cluster's, it presents a certificate for 127.0.0.1 signed by a CA (the test CA, see test-ca.ts), which its
 * kubeconfig names: clients verify the server as they would in production.
 * State and answers are scripted through the methods inherited from {@link FakeKubeState} and the fault methods.
 */
export class FakeKubeApi extends FakeKubeRoutes {
  /** Every request in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** A kubeconfig whose current context points at this server over HTTPS, trusting the test CA, with a token. */
  readonly kubeconfigPath: string;
  private readonly server: Server;
  private readonly dir: string;
  private readonly faults: Fault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly calls = new KubeCallRecorder();
  private latencyMs = 0;
  private handshakes = 0;
  private blackholed = false;
  private baseUrl = "";

  private constructor(private readonly certificate: TestServerCertificate) {
    super();
    this.dir = mkdtempSync(join(tmpdir(), "kintsugi-fake-kube-"));
    this.kubeconfigPath = join(this.dir, "kubeconfig");
    // A client that hangs up mid-request is no failure of the test.
    this.server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, (req, res) => void this.serve(req, res).catch(() => res.destroy()));
    this.server.on("secureConnection", () => this.handshakes++);
  }

  /** Starts a fake on a free port and writes its kubeconfig. */
  static async start(): Promise<FakeKubeApi> {
    const fake = new FakeKubeApi(await testServerCertificate());
    await new Promise<void>((resolve, reject) => {
      fake.server.once("error", reject);
      fake.server.listen(0, "127.0.0.1", () => resolve());
    });
    fake.baseUrl = `https://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    writeTestKubeconfig(fake.kubeconfigPath, fake.baseUrl, fake.caPem);
    return fake;
  }

  /** `https://127.0.0.1:<port>` */
  get url(): string {
    return this.baseUrl;
  }

  /** The PEM certificate of the CA that signed this server's certificate: what a client must trust to reach it. */
  get caPem(): string {
    return this.certificate.ca.certPem;
  }

  /** The temporary directory holding the kubeconfig; removed by {@link close}. A place for kubectl's `--cache-dir`. */
  get tempDir(): string {
    return this.dir;
  }

  /**
   * Answers the next `count` requests whose path matches (and method, when given) with `status` and a Status body,
   * changing nothing.
   */
  failNextRequests(pathPattern: RegExp, status: number, count = 1, options: FaultOptions = {}): void {
    const message = options.message ?? `injected failure (HTTP ${status})`;
    this.faults.push({ pattern: pathPattern, method: options.method ?? null, status, message, remaining: count });
  }

  private readonly nodeWatchers = new Set<ServerResponse>();

  protected override nodeChanged(type: "ADDED" | "MODIFIED" | "DELETED", node: KubeObject): void {
    for (const res of this.nodeWatchers) res.write(`${JSON.stringify({ type, object: node })}\n`);
  }

  /** Ends every open watch, as an API server does from time to time. */
  endWatches(): void {
    for (const res of this.nodeWatchers) res.end();
    this.nodeWatchers.clear();
  }

  /** Delays every request by `ms` before it is handled: until then it has no effect. */
  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  /**
   * `true`: from now on every request (watches too) is accepted, recorded and then never answered, as by an API
   * server that hangs. `false`: new requests are answered again; the ones held stay unanswered until the client
   * gives up or {@link close} ends their connections.
   */
  blackhole(on: boolean): void {
    this.blackholed = on;
  }

  /** How many TLS connections clients have opened so far (each a full handshake). */
  get tlsConnections(): number {
    return this.handshakes;
  }

  /** How many client connections are open now (held, watching or idle). */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) => this.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
  }

  /** Closes every connection (held ones too), drops delayed answers and removes the temporary directory. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const method = req.method ?? "GET";
    const contentType = req.headers["content-type"] ?? null;
    this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType });
    // Also the ones answered by a fault or held: the client asked for them all the same.
    this.calls.record(method, url.pathname, url.searchParams, req.headers["user-agent"] ?? "");
    // Held: no answer, no effect; close() or the client ends the connection.
    if (this.blackholed) return;
    if (this.latencyMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, this.latencyMs);
        this.timers.add(timer);
      });
    }
    if (method === "GET" && url.pathname === "/api/v1/nodes" && ["true", "1"].includes(url.searchParams.get("watch") ?? "")) {
      // A watch: the answer stays open and carries one JSON event per line, as the API server's does.
      res.writeHead(200, { "Content-Type": "application/json" });
      this.nodeWatchers.add(res);
      res.on("close", () => this.nodeWatchers.delete(res));
      return;
    }
    const reply = this.answer(method, url, contentType ?? "", req.headers.accept ?? "", Buffer.concat(chunks).toString("utf8"));
    if (res.destroyed) return;
    res.writeHead(reply.status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(reply.body));
  }

  private answer(method: string, url: URL, contentType: string, accept: string, text: string): Reply {
    const fault = this.faults.find((f) => f.remaining > 0 && (f.method === null || f.method === method) && f.pattern.test(url.pathname));
    if (fault) {
      fault.remaining--;
      return statusReply(fault.status, fault.message);
    }
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      return statusReply(400, "the request body is not JSON");
    }
    return this.handle({ method, url, contentType, accept, body });
  }
}

/** Starts a {@link FakeKubeApi}; close it with `close()`. */
export function startFakeKubeApi(): Promise<FakeKubeApi> {
  return FakeKubeApi.start();
}
