// A test sabakan: sabakan's GraphQL API on a real HTTP port of 127.0.0.1, executed by graphql-js against sabakan's own
// schema file over in-memory machines, answering HTTP the way sabakan's gqlgen handler does. Faults are scriptable.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { execute, getOperationAST, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import { MachineStore, type FakeMachine, type FakeMachineSpec, type MachineState, type TimeInput } from "./fake-sabakan-machines.js";
import { isObject, loadSabakanTypeDefs, makeSabakanSchema, parseJson, requestError, stringifyData, type SabakanContext } from "./fake-sabakan-schema.js";

export { PERMITTED_TRANSITIONS, formatRFC3339Nano, formatGoFloat } from "./fake-sabakan-machines.js";
export type { FakeMachine, FakeMachineSpec, Instant, MachineState, TimeInput } from "./fake-sabakan-machines.js";
export { loadSabakanTypeDefs, SABAKAN_SCHEMA_URL } from "./fake-sabakan-schema.js";

/** One request as the fake received it, including those answered by a fault. */
export interface RecordedSabakanRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON; its raw text when it is not JSON; undefined when empty. */
  readonly body: unknown;
  /** `variables` as sent: from the JSON body (POST) or the JSON of the `variables` query parameter (GET). */
  readonly variables: unknown;
  readonly query: string | undefined;
  readonly operationName: string | undefined;
}

export interface FakeSabakanOptions {
  /** The clock, epoch milliseconds; default Date.now. Durations, defaults and matching use it. */
  readonly now?: () => number;
}

type Answer = { status: number; contentType: string } & ({ body: string | Buffer } | { stream: () => AsyncIterable<string | Buffer> });
/** A scripted answer or latency for the next `remaining` requests (Infinity: until {@link FakeSabakan.clearFaults}). */
type Scripted<T> = { readonly value: T; remaining: number };

const JSON_TYPE = "application/json";
const LARGE_HEAD = '{"data":{"searchMachines":[]},"extensions":{"padding":"';
const LARGE_TAIL = '"}}';

function take<T>(queue: Array<Scripted<T>>): T | undefined {
  const head = queue[0];
  if (!head) return undefined;
  if (--head.remaining <= 0) queue.shift();
  return head.value;
}

const json = (status: number, body: string): Answer => ({ status, contentType: JSON_TYPE, body });

/** gqlgen's answer to a request it cannot run: `{"errors":[...],"data":null}`. */
function gqlErrors(status: number, errors: readonly object[]): Answer {
  return json(status, JSON.stringify({ errors, data: null }));
}

/** See the file's head; start one with {@link startFakeSabakan}. */
export class FakeSabakan {
  /** Every request in arrival order. */
  readonly requests: RecordedSabakanRequest[] = [];
  private readonly server: Server;
  private readonly store: MachineStore;
  private readonly schema: GraphQLSchema;
  private readonly faults: Array<Scripted<Answer>> = [];
  private readonly latencies: Array<Scripted<number>> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private baseUrl = "";

  private constructor(
    typeDefs: string,
    private readonly now: () => number,
  ) {
    this.store = new MachineStore(now);
    this.schema = makeSabakanSchema(typeDefs, this.store);
    // A client that hangs up mid-answer is no failure of the test.
    this.server = createServer((req, res) => void this.serve(req, res).catch(() => res.destroy()));
  }

  static async start(options: FakeSabakanOptions = {}): Promise<FakeSabakan> {
    const fake = new FakeSabakan(loadSabakanTypeDefs(), options.now ?? Date.now);
    await new Promise<void>((resolve, reject) => {
      fake.server.once("error", reject);
      fake.server.listen(0, "127.0.0.1", () => resolve());
    });
    fake.baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** `http://127.0.0.1:<port>`; GraphQL is at `url + "/graphql"`. */
  get url(): string {
    return this.baseUrl;
  }

  addMachine(spec: FakeMachineSpec): FakeMachine {
    return this.store.add(spec);
  }

  /** Sets a machine's state and its timestamp (default now), without sabakan's transition check. */
  setState(serial: string, state: MachineState, since?: TimeInput): FakeMachine {
    return this.store.force(serial, state, since);
  }

  machine(serial: string): FakeMachine | undefined {
    return this.store.get(serial);
  }

  /** Every machine, sorted by serial. */
  machines(): FakeMachine[] {
    return this.store.all();
  }

  /** Answers with `status` and `body` (an object or array goes out as JSON; default a gqlgen-style error). */
  failWithStatus(status: number, body?: string | object, times = 1): void {
    const answer: Answer =
      typeof body === "string"
        ? { status, contentType: "text/plain; charset=utf-8", body }
        : json(status, JSON.stringify(body ?? { errors: [{ message: `injected failure (HTTP ${status})` }], data: null }));
    this.faults.push({ value: answer, remaining: times });
  }

  /** Answers HTTP 200 with `{"errors": errors, "data": null}`; a string stands for `{message}`. */
  failWithErrors(errors: ReadonlyArray<string | object>, times = 1): void {
    this.faults.push({
      value: gqlErrors(
        200,
        errors.map((e) => (typeof e === "string" ? { message: e } : e)),
      ),
      remaining: times,
    });
  }

  /** Answers exactly `rawBody`, e.g. malformed JSON. */
  respondWith(rawBody: string | Buffer, status = 200, contentType = JSON_TYPE, times = 1): void {
    this.faults.push({ value: { status, contentType, body: rawBody }, remaining: times });
  }

  /** Answers a valid JSON body of exactly `bytes` bytes, streamed in chunks (no Content-Length, as Go's chunking). */
  respondWithLargeBody(bytes: number, times = 1): void {
    const padding = bytes - LARGE_HEAD.length - LARGE_TAIL.length;
    if (!Number.isInteger(bytes) || padding < 0) throw new Error(`a large body has at least ${LARGE_HEAD.length + LARGE_TAIL.length} bytes`);
    async function* chunks(): AsyncIterable<string | Buffer> {
      yield LARGE_HEAD;
      const block = Buffer.alloc(64 * 1024, "x");
      for (let left = padding; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
      yield LARGE_TAIL;
    }
    this.faults.push({ value: { status: 200, contentType: JSON_TYPE, stream: chunks }, remaining: times });
  }

  /** Delays the answer (fault or not) to each of the next `times` requests by `ms`. */
  setLatency(ms: number, times = 1): void {
    this.latencies.push({ value: ms, remaining: times });
  }

  /** Drops every scripted fault and latency. */
  clearFaults(): void {
    this.faults.length = 0;
    this.latencies.length = 0;
  }

  /** Closes every connection and drops delayed answers. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const method = req.method ?? "GET";
    const body = parseJson(text);
    const sent: Record<string, unknown> = method === "GET" ? { ...Object.fromEntries(url.searchParams) } : isObject(body) ? body : {};
    if (method === "GET" && typeof sent["variables"] === "string") sent["variables"] = parseJson(sent["variables"]);
    this.requests.push({
      method,
      path: url.pathname,
      contentType: req.headers["content-type"] ?? null,
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")])),
      body,
      variables: sent["variables"],
      query: typeof sent["query"] === "string" ? sent["query"] : undefined,
      operationName: typeof sent["operationName"] === "string" ? sent["operationName"] : undefined,
    });
    // Faults and latencies belong to the request they were scripted for, even when its client gives up waiting.
    const [latency, fault] = [take(this.latencies), take(this.faults)];
    if (latency) await this.delay(latency);
    const answer = fault ?? (await this.answer(method, url.pathname, req.headers["content-type"], text, isObject(body), sent));
    if (res.destroyed) return;
    res.writeHead(answer.status, { "Content-Type": answer.contentType });
    if ("stream" in answer) await pipeline(Readable.from(answer.stream()), res);
    else res.end(answer.body);
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(void this.timers.delete(timer)), ms);
      this.timers.add(timer);
    });
  }

  // gqlgen's handler: POST needs Content-Type application/json; GET takes query, variables and operationName.
  private async answer(
    method: string,
    path: string,
    contentType: string | undefined,
    text: string,
    jsonObject: boolean,
    sent: Record<string, unknown>,
  ): Promise<Answer> {
    if (path !== "/graphql") return { status: 404, contentType: "text/plain; charset=utf-8", body: "404 page not found\n" };
    const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
    const transport = method === "GET" || (method === "POST" && mediaType === JSON_TYPE);
    if (!transport) return gqlErrors(400, [{ message: "transport not supported" }]);
    const { query = "", variables = null, operationName = null } = sent;
    const decodable =
      (method === "GET" || jsonObject) &&
      typeof query === "string" &&
      (variables === null || isObject(variables)) &&
      (operationName === null || typeof operationName === "string");
    if (!decodable)
      return gqlErrors(400, [{ message: method === "GET" ? "variables could not be decoded" : `json request body could not be decoded: body:${text}` }]);
    return this.run(query as string, variables as Record<string, unknown> | null, operationName as string | null, method === "GET");
  }

  private async run(query: string, variables: Record<string, unknown> | null, operationName: string | null, viaGet: boolean): Promise<Answer> {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (err) {
      if (err instanceof GraphQLError) return gqlErrors(422, [requestError(err, "GRAPHQL_PARSE_FAILED")]);
      throw err;
    }
    const invalid = validate(this.schema, document);
    if (invalid.length > 0)
      return gqlErrors(
        422,
        invalid.map((e) => requestError(e, "GRAPHQL_VALIDATION_FAILED")),
      );
    const operation = getOperationAST(document, operationName);
    if (!operation) return gqlErrors(422, [{ message: `operation ${operationName ?? ""} not found`, extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }]);
    if (viaGet && operation.operation !== "query") return gqlErrors(406, [{ message: "GET requests only allow query operations" }]);
    const context: SabakanContext = { now: this.now(), floatPaths: new Set() };
    const result = await execute({ schema: this.schema, document, variableValues: variables, operationName, contextValue: context });
    // No data at all: the variables did not coerce, which gqlgen reports as a validation failure.
    if (result.data === undefined)
      return gqlErrors(
        422,
        (result.errors ?? []).map((e) => requestError(e, "GRAPHQL_VALIDATION_FAILED")),
      );
    const errors = result.errors?.map((e) => ({
      message: e.message,
      ...(e.path ? { path: e.path } : {}),
      ...(e.extensions && Object.keys(e.extensions).length > 0 ? { extensions: e.extensions } : {}),
    }));
    return json(200, `{${errors ? `"errors":${JSON.stringify(errors)},` : ""}"data":${stringifyData(result.data, context.floatPaths)}}`);
  }
}

/** Starts a {@link FakeSabakan} on a free port of 127.0.0.1; close it with `close()`. */
export function startFakeSabakan(options?: FakeSabakanOptions): Promise<FakeSabakan> {
  return FakeSabakan.start(options);
}
