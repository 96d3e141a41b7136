import { randomUUID } from "node:crypto";
import {
  API_GROUPS,
  CORE_RESOURCES,
  HttpError,
  POLICY_RESOURCES,
  VERSION,
  badRequest,
  mergePatch,
  notFound,
  selectorFilter,
  statusReply,
  table,
  type KubeObject,
  type Reply,
} from "./fake-kube-api-objects.js";
import { FakeKubeState, podKey, type RecordedEviction } from "./fake-kube-api-state.js";

/** A request as route handlers see it. */
export interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly contentType: string;
  readonly accept: string;
  readonly body: unknown;
}

type Handler = (request: FakeRequest, params: Record<string, string>) => Reply;

// The API server reads eventTime as a MicroTime: exactly six fractional digits.
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;
const MERGE_TYPES = ["application/merge-patch+json", "application/strategic-merge-patch+json"];
const ok = (body: unknown, status = 200): Reply => ({ status, body });
const isDryRun = (request: FakeRequest): boolean => request.url.searchParams.getAll("dryRun").includes("All");

/** The fake's HTTP routes: {@link FakeKubeRoutes.handle} answers a request as the API server would, for what kintsugi and kubectl use. */
export class FakeKubeRoutes extends FakeKubeState {
  private readonly routes: Array<[string, RegExp, Handler]> = [];

  constructor() {
    super();
    const route = (method: string, pattern: string, handler: Handler): void => {
      const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`);
      this.routes.push([method, regex, handler]);
    };
    route("GET", "/version", () => ok(VERSION));
    route("GET", "/api", () => ok({ kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] }));
    route("GET", "/apis", () => ok(API_GROUPS));
    route("GET", "/api/v1", () => ok(CORE_RESOURCES));
    route("GET", "/apis/policy/v1", () => ok(POLICY_RESOURCES));
    route("GET", "/api/v1/nodes", (r) => this.list(r, "Node", [...this.nodes.values()]));
    route("GET", "/api/v1/nodes/:name", (_, p) => ok(this.mustGet(this.nodes, p.name!, "nodes")));
    route("PATCH", "/api/v1/nodes/:name", (r, p) => this.patchNode(r, p.name!));
    route("GET", "/api/v1/pods", (r) => this.list(r, "Pod", [...this.podObjects.values()]));
    route("GET", "/api/v1/namespaces/:ns/pods", (r, p) => this.list(r, "Pod", this.inNamespace(this.podObjects.values(), p.ns!)));
    route("GET", "/api/v1/namespaces/:ns/pods/:name", (_, p) => ok(this.mustGet(this.podObjects, podKey(p.ns!, p.name!), "pods")));
    route("DELETE", "/api/v1/namespaces/:ns/pods/:name", (r, p) => this.deletePod(r, p.ns!, p.name!));
    route("POST", "/api/v1/namespaces/:ns/pods/:name/eviction", (r, p) => this.evict(r, p.ns!, p.name!));
    route("GET", "/api/v1/namespaces", (r) => this.list(r, "Namespace", [...this.namespaces.values()]));
    route("GET", "/api/v1/namespaces/:name", (_, p) => ok(this.mustGet(this.namespaces, p.name!, "namespaces")));
    route("GET", "/api/v1/events", (r) => this.list(r, "Event", this.eventObjects));
    route("GET", "/api/v1/namespaces/:ns/events", (r, p) => this.list(r, "Event", this.inNamespace(this.eventObjects, p.ns!)));
    route("POST", "/api/v1/namespaces/:ns/events", (r, p) => this.createEvent(r, p.ns!));
  }
  /** Answers one request; state changes only through this and the scripting methods. */
  handle(request: FakeRequest): Reply {
    const path = request.url.pathname.replace(/\/+$/, "") || "/";
    let pathKnown = false;
    for (const [method, regex, handler] of this.routes) {
      const match = regex.exec(path);
      if (!match) continue;
      pathKnown = true;
      if (method !== request.method) continue;
      const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
      try {
        return handler(request, params);
      } catch (error) {
        if (error instanceof HttpError) return error.reply;
        return statusReply(500, `fake kube API bug: ${(error as Error).stack ?? String(error)}`);
      }
    }
    return pathKnown
      ? statusReply(405, `the server does not allow this method on the requested resource`)
      : statusReply(404, "the server could not find the requested resource");
  }
  private mustGet(map: Map<string, KubeObject>, key: string, resource: string): KubeObject {
    const object = map.get(key);
    if (!object) throw notFound(resource, key.slice(key.indexOf("/") + 1));
    return object;
  }

  private inNamespace(objects: Iterable<KubeObject>, namespace: string): KubeObject[] {
    return [...objects].filter((o) => o.metadata.namespace === namespace);
  }

  private list(request: FakeRequest, kind: string, objects: KubeObject[]): Reply {
    const items = objects.filter(selectorFilter(request.url.searchParams));
    if (request.accept.includes("as=Table")) return ok(table(kind, items));
    // Pages as the API server does: `limit` items, a `continue` token for the rest, 410 Gone for an expired token.
    const params = request.url.searchParams;
    const limit = Number(params.get("limit") ?? "0");
    const token = params.get("continue");
    let start = 0;
    if (token !== null) {
      if (this.expiredContinueTokens > 0) {
        this.expiredContinueTokens--;
        return statusReply(410, "The provided continue parameter is too old to display a consistent list result.", undefined, "Expired");
      }
      start = Number(token);
    }
    const end = limit > 0 ? start + limit : items.length;
    const more = end < items.length;
    const metadata = { resourceVersion: String(this.resourceVersion), ...(more && { continue: String(end) }) };
    return ok({ kind: `${kind}List`, apiVersion: "v1", metadata, items: items.slice(start, end) });
  }

  private patchNode(request: FakeRequest, name: string): Reply {
    const node = this.mustGet(this.nodes, name, "nodes");
    if (!MERGE_TYPES.includes(request.contentType.split(";")[0]!.trim())) {
      throw new HttpError(statusReply(415, `the fake accepts merge patches only, not ${JSON.stringify(request.contentType)}`));
    }
    const patch = request.body as KubeObject | undefined;
    if (patch === null || typeof patch !== "object" || Array.isArray(patch)) throw badRequest("the patch is not a JSON object");
    const wanted = patch.metadata?.resourceVersion;
    if (wanted !== undefined && wanted !== node.metadata.resourceVersion) {
      throw new HttpError(
        statusReply(
          409,
          `Operation cannot be fulfilled on nodes "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name, kind: "nodes" },
        ),
      );
    }
    if (patch.metadata?.name !== undefined && patch.metadata.name !== name) throw badRequest("the name of a node cannot be changed");
    const patched = mergePatch(node, patch) as KubeObject;
    patched.metadata.resourceVersion = this.nextVersion();
    this.nodes.set(name, patched);
    this.nodeChanged("MODIFIED", patched);
    return ok(patched);
  }
  private deletePod(request: FakeRequest, namespace: string, name: string): Reply {
    const key = podKey(namespace, name);
    const pod = structuredClone(this.mustGet(this.podObjects, key, "pods"));
    if (!isDryRun(request)) this.terminate(key);
    return ok(pod);
  }

  private evict(request: FakeRequest, namespace: string, name: string): Reply {
    const eviction = request.body as KubeObject | undefined;
    if (eviction?.kind !== "Eviction") throw badRequest("the body must be a policy/v1 Eviction");
    if (eviction.metadata?.name !== name) throw badRequest("name in URL does not match name in Eviction object");
    // kubectl drain --dry-run=server puts dryRun in the body's deleteOptions; clients may use the query instead.
    const dryRun = isDryRun(request) || (eviction.deleteOptions?.dryRun ?? []).includes("All");
    const key = podKey(namespace, name);
    const pod = this.podObjects.get(key);
    const record = (outcome: RecordedEviction["outcome"]): void => void this.evictions.push({ namespace, name, dryRun, outcome });
    if (!pod) {
      record("not-found");
      throw notFound("pods", name);
    }
    const refusal = this.refusals.get(key);
    const guarded = ["Running", "Unknown"].includes(pod.status.phase) && !pod.metadata.deletionTimestamp;
    if (refusal !== undefined && guarded && (!dryRun || refusal.dryRunToo)) {
      record("refused");
      const cause = { reason: "DisruptionBudget", message: `The disruption budget ${name}-pdb needs 1 healthy pods and has 0 currently` };
      throw new HttpError(statusReply(429, refusal.message, { causes: [cause] }));
    }
    record("evicted");
    if (!dryRun && !pod.metadata.deletionTimestamp) this.terminate(key);
    return ok({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 }, 201);
  }

  private createEvent(request: FakeRequest, namespace: string): Reply {
    const event = request.body as KubeObject | undefined;
    if (event?.kind !== "Event" || typeof event.metadata?.name !== "string") throw badRequest("the body must be a v1 Event with a name");
    if (event.metadata.namespace !== undefined && event.metadata.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    if (!this.namespaces.has(namespace)) throw notFound("namespaces", namespace);
    if (event.eventTime !== undefined && !MICRO_TIME.test(event.eventTime)) {
      throw badRequest(`Event in version "v1" cannot be handled as a Event: parsing time ${JSON.stringify(event.eventTime)} as MicroTime`);
    }
    const missing = ["involvedObject", "reason", ...(event.eventTime ? ["reportingComponent", "reportingInstance", "action"] : [])].filter(
      (field) => !event[field],
    );
    if (missing.length > 0)
      throw new HttpError(statusReply(422, `Event "${event.metadata.name}" is invalid: ${missing.map((f) => `${f}: Required value`).join(", ")}`));
    if (this.eventObjects.some((e) => e.metadata.namespace === namespace && e.metadata.name === event.metadata.name)) {
      throw new HttpError(statusReply(409, `events "${event.metadata.name}" already exists`, undefined, "AlreadyExists"));
    }
    const stored = {
      ...event,
      metadata: { ...event.metadata, namespace, uid: randomUUID(), resourceVersion: this.nextVersion(), creationTimestamp: this.timestamp() },
    };
    this.eventObjects.push(stored);
    return ok(stored, 201);
  }
}
