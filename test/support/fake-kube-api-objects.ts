// The parts of the fake Kubernetes API that are protocol rather than state: Status bodies, discovery documents,
// selectors, merge patches and the Table format kubectl asks for.
import { matchesLabelSelector, parseLabelSelectorString } from "../../src/domain/shared/label-selector.js";

/** A Kubernetes object as JSON; the fake reads and writes bodies loosely on purpose. */
export type KubeObject = Record<string, any>;

/** An HTTP answer of the fake: a status code and a JSON body. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
}

const REASONS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A failure answer with a real metav1.Status body, which clients parse for `message`, `reason` and `code`. */
export function statusReply(code: number, message: string, details?: KubeObject, reason?: string): Reply {
  const body = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: reason ?? REASONS[code] ?? "Unknown",
    ...(details ? { details } : {}),
    code,
  };
  return { status: code, body };
}

/** Thrown by route handlers to answer with a Status. */
export class HttpError extends Error {
  constructor(readonly reply: Reply) {
    super(String((reply.body as KubeObject).message));
  }
}

export function notFound(resource: string, name: string): HttpError {
  return new HttpError(statusReply(404, `${resource} "${name}" not found`, { name, kind: resource }));
}

export function badRequest(message: string): HttpError {
  return new HttpError(statusReply(400, message));
}

/** RFC 7386 JSON merge patch; the fake also applies strategic merge patches this way (fine for maps and scalars). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const isObject = target !== null && typeof target === "object" && !Array.isArray(target);
  const result: KubeObject = isObject ? { ...(target as KubeObject) } : {};
  for (const [key, value] of Object.entries(patch as KubeObject)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Builds a filter from `?labelSelector=` and `?fieldSelector=` (fields as dotted paths, `=`, `==` or `!=`). */
export function selectorFilter(query: URLSearchParams): (object: KubeObject) => boolean {
  let labels: ReturnType<typeof parseLabelSelectorString>;
  try {
    labels = parseLabelSelectorString(query.get("labelSelector") ?? "");
  } catch (error) {
    throw badRequest(`unable to parse requirement: ${(error as Error).message}`);
  }
  const fields = (query.get("fieldSelector") ?? "")
    .split(",")
    .filter((part) => part.trim() !== "")
    .map((part) => {
      const match = /^\s*([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
      if (!match) throw badRequest(`invalid field selector: ${JSON.stringify(part)}`);
      return { path: match[1]!.split("."), equal: match[2] !== "!=", value: match[3]! };
    });
  return (object) =>
    matchesLabelSelector(labels, object.metadata?.labels ?? {}) &&
    fields.every(({ path, equal, value }) => {
      const actual = path.reduce<unknown>((node, key) => (node as KubeObject | undefined)?.[key], object);
      return (String(actual ?? "") === value) === equal;
    });
}

/** `GET /api/v1` and `GET /apis/policy/v1`: what kubectl's discovery needs to find these resources and evictions. */
export const CORE_RESOURCES = {
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: "v1",
  resources: [
    { name: "nodes", singularName: "node", namespaced: false, kind: "Node", verbs: ["get", "list", "patch"], shortNames: ["no"] },
    { name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["delete", "get", "list"], shortNames: ["po"] },
    // kubectl drain looks for this entry, with its group and version, to decide that evictions are supported.
    { name: "pods/eviction", singularName: "", namespaced: true, group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] },
    { name: "namespaces", singularName: "namespace", namespaced: false, kind: "Namespace", verbs: ["get", "list"], shortNames: ["ns"] },
    { name: "events", singularName: "event", namespaced: true, kind: "Event", verbs: ["create", "get", "list"], shortNames: ["ev"] },
  ],
};

export const POLICY_RESOURCES = {
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: "policy/v1",
  resources: [
    { name: "poddisruptionbudgets", singularName: "poddisruptionbudget", namespaced: true, kind: "PodDisruptionBudget", verbs: ["list"], shortNames: ["pdb"] },
  ],
};

export const API_GROUPS = {
  kind: "APIGroupList",
  apiVersion: "v1",
  groups: [{ name: "policy", versions: [{ groupVersion: "policy/v1", version: "v1" }], preferredVersion: { groupVersion: "policy/v1", version: "v1" } }],
};

export const VERSION = { major: "1", minor: "32", gitVersion: "v1.32.0-fake", platform: "linux/amd64" };

function age(object: KubeObject): string {
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(object.metadata?.creationTimestamp ?? "")) / 1000));
  return seconds < 120 ? `${seconds}s` : `${Math.floor(seconds / 60)}m`;
}

/** The server-side printing kubectl asks for with `Accept: ...;as=Table`, with `kubectl get nodes`' columns for nodes. */
export function table(kind: string, items: KubeObject[]): KubeObject {
  const isNode = kind === "Node";
  const columns = isNode ? ["Name", "Status", "Roles", "Age", "Version"] : ["Name", "Age"];
  const cells = (o: KubeObject): string[] => {
    if (!isNode) return [o.metadata.name, age(o)];
    const status = o.spec?.unschedulable === true ? "Ready,SchedulingDisabled" : "Ready";
    return [o.metadata.name, status, "<none>", age(o), o.status?.nodeInfo?.kubeletVersion ?? ""];
  };
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: {},
    columnDefinitions: columns.map((name, i) => ({ name, type: "string", format: i === 0 ? "name" : "", description: name, priority: 0 })),
    rows: items.map((o) => ({
      cells: cells(o),
      object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
    })),
  };
}
