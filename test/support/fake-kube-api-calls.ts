import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A request to the Kubernetes API in RBAC's terms, as the API server's authorizer sees it: a resource request
 * (verb, API group, resource, subresource, namespace) or a non-resource URL.
 */
export type KubeCall =
  | {
      readonly kind: "resource";
      /** get, list, watch, create, update, patch, delete or deletecollection. A dry run is the same verb. */
      readonly verb: string;
      /** "" for the core group. */
      readonly group: string;
      readonly resource: string;
      /** "" when none, e.g. "eviction" for pods/eviction. */
      readonly subresource: string;
      /** null for a cluster-scoped resource or a request across all namespaces. */
      readonly namespace: string | null;
    }
  | { readonly kind: "non-resource"; readonly verb: string; readonly path: string };

/** A recorded call, with who made it: kubectl (a test looking at the fake) or anyone else (kintsugi's adapters). */
export type RecordedKubeCall = KubeCall & { readonly client: "kubectl" | "kintsugi"; readonly source: string };

/** The environment variable naming the directory where every fake appends the calls it serves (JSON lines). */
export const KUBE_CALLS_DIR_ENV = "KINTSUGI_KUBE_CALLS_DIR";

const WATCHING = ["true", "1"];

/**
 * The RBAC attributes of a request, as the API server's request-info resolver derives them: `/api/v1/...` is the
 * core group, `/apis/GROUP/VERSION/...` a named one; `namespaces/NS/RESOURCE[/NAME[/SUBRESOURCE]]` is namespaced,
 * except `namespaces/NAME[/SUBRESOURCE]` (the namespace object itself); a GET with `watch=true` is a watch.
 */
export function kubeCallOf(method: string, path: string, query: URLSearchParams): KubeCall {
  const parts = path
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return { kind: "non-resource", verb: method.toLowerCase(), path };
  }
  let namespace: string | null = null;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest as [string, string | undefined, string | undefined];
  const watching = WATCHING.includes(query.get("watch") ?? "");
  const verb =
    method === "GET"
      ? watching
        ? "watch"
        : name === undefined
          ? "list"
          : "get"
      : method === "POST"
        ? "create"
        : method === "PUT"
          ? "update"
          : method === "PATCH"
            ? "patch"
            : method === "DELETE"
              ? name === undefined
                ? "deletecollection"
                : "delete"
              : method.toLowerCase();
  return { kind: "resource", verb, group, resource, subresource: subresource ?? "", namespace };
}

/**
 * Appends the calls a fake serves to `<dir>/<pid>.jsonl` when {@link KUBE_CALLS_DIR_ENV} is set (scripts/run-tests.mjs
 * sets it for the whole suite), each distinct call once per recorder: test/deploy/rbac.suite-check.ts then checks the
 * shipped RBAC rules against everything kintsugi asked for.
 */
export class KubeCallRecorder {
  private readonly seen = new Set<string>();
  private readonly file: string | null;

  constructor(dir = process.env[KUBE_CALLS_DIR_ENV]) {
    this.file = dir ? join(dir, `${process.pid}.jsonl`) : null;
  }

  record(method: string, path: string, query: URLSearchParams, userAgent: string): void {
    if (this.file === null) return;
    const call: RecordedKubeCall = {
      ...kubeCallOf(method, path, query),
      // kubectl, or the version dispatcher some distributions put in front of it ("kubectl-dispatcher/v1.0").
      client: /^kubectl[/-]/.test(userAgent) ? "kubectl" : "kintsugi",
      // The test file (its .ts, also when scripts/run-tests.mjs runs the transpiled .js from .test-build/, through
      // the link .test-build/.order/N/.test-build/ that sets its place in the run, or several files in one process:
      // scripts/test-processes.mjs names the one running).
      source:
        process.env["KINTSUGI_TEST_SOURCE"] ??
        (process.argv.find((arg) => /\.(test|suite-check)\.[jt]s$/.test(arg)) ?? process.argv[1] ?? "").replace(
          /\.test-build\/(?:\.order\/\d+\/\.test-build\/)?(.*)\.js$/,
          "$1.ts",
        ),
    };
    const line = JSON.stringify(call);
    if (this.seen.has(line)) return;
    this.seen.add(line);
    appendFileSync(this.file, `${line}\n`);
  }
}

/** Every call recorded in `dir` (all processes' files). */
export function readKubeCalls(dir: string): RecordedKubeCall[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) =>
      readFileSync(join(dir, name), "utf8")
        .split("\n")
        .filter((line) => line !== ""),
    )
    .map((line) => JSON.parse(line) as RecordedKubeCall);
}
