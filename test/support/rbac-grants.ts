import { readFileSync } from "node:fs";
import YAML from "yaml";
import type { KubeCall } from "./fake-kube-api-calls.js";

/** A PolicyRule of a Role or ClusterRole. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** The rules bound to one ServiceAccount: cluster-wide ones, and per-namespace ones. */
export interface BoundRules {
  /** Each rule with where it comes from, e.g. `ClusterRole kintsugi`, and its namespace (null: every namespace). */
  readonly rules: ReadonlyArray<{ readonly from: string; readonly namespace: string | null; readonly rule: PolicyRule }>;
}

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: { kind: string; name: string };
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
}

/**
 * The rules that the (Cluster)RoleBindings in the YAML documents of `file` bind to the ServiceAccount `account` of
 * `namespace`, as the API server's authorizer would apply them.
 */
export function boundRules(file: string, namespace: string, account: string): BoundRules {
  const objects = YAML.parseAllDocuments(readFileSync(file, "utf8"))
    .map((doc) => doc.toJS() as K8sObject)
    .filter(Boolean);
  const find = (kind: string, name: string, ns?: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name && (ns === undefined || o.metadata.namespace === ns));
  const isAccount = (s: { kind: string; name: string; namespace?: string }, bindingNamespace?: string) =>
    s.kind === "ServiceAccount" && s.name === account && (s.namespace ?? bindingNamespace) === namespace;
  const rules: Array<BoundRules["rules"][number]> = [];
  for (const binding of objects) {
    if (binding.kind !== "ClusterRoleBinding" && binding.kind !== "RoleBinding") continue;
    const bindingNamespace = binding.kind === "RoleBinding" ? binding.metadata.namespace : undefined;
    if (!(binding.subjects ?? []).some((s) => isAccount(s, bindingNamespace))) continue;
    const ref = binding.roleRef!;
    const role = ref.kind === "ClusterRole" ? find("ClusterRole", ref.name) : find("Role", ref.name, bindingNamespace);
    if (!role) throw new Error(`${binding.kind} ${binding.metadata.name} refers to ${ref.kind} ${ref.name}, which ${file} does not define`);
    for (const rule of role.rules ?? []) rules.push({ from: `${ref.kind} ${ref.name}`, namespace: bindingNamespace ?? null, rule });
  }
  return { rules };
}

// Granted to every authenticated client by Kubernetes' default bindings (system:discovery, system:public-info-viewer).
const DEFAULT_NON_RESOURCE = [/^\/api(\/.*)?$/, /^\/apis(\/.*)?$/, /^\/version\/?$/, /^\/(healthz|livez|readyz)$/, /^\/openapi\/.*$/];

const covers = (list: readonly string[] | undefined, value: string) => (list ?? []).includes("*") || (list ?? []).includes(value);

/** The resource as RBAC rules name it: `pods`, or `pods/eviction` for a subresource. */
export const resourceName = (call: Extract<KubeCall, { kind: "resource" }>) => (call.subresource ? `${call.resource}/${call.subresource}` : call.resource);

/** Whether `call` is allowed by one of the bound rules. */
export function isGranted(call: KubeCall, bound: BoundRules): boolean {
  if (call.kind === "non-resource") {
    if (call.verb === "get" && DEFAULT_NON_RESOURCE.some((pattern) => pattern.test(call.path))) return true;
    return bound.rules.some(({ namespace, rule }) => namespace === null && covers(rule.verbs, call.verb) && covers(rule.nonResourceURLs, call.path));
  }
  return bound.rules.some(
    ({ namespace, rule }) =>
      (namespace === null || namespace === call.namespace) &&
      rule.resourceNames === undefined &&
      covers(rule.apiGroups, call.group) &&
      covers(rule.resources, resourceName(call)) &&
      covers(rule.verbs, call.verb),
  );
}

/** One grant of a bound rule: a verb on a resource of an API group, and where. */
export interface Grant {
  readonly from: string;
  readonly namespace: string | null;
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
}

/** Every (group, resource, verb) a bound rule grants; a wildcard or a non-resource rule is refused, as no least privilege. */
export function grantsOf(bound: BoundRules): Grant[] {
  return bound.rules.flatMap(({ from, namespace, rule }) => {
    const all = [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs];
    if (all.includes("*") || rule.nonResourceURLs !== undefined) throw new Error(`${from} has a wildcard or non-resource rule: ${JSON.stringify(rule)}`);
    return (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resource) => rule.verbs.map((verb) => ({ from, namespace, group, resource, verb }))),
    );
  });
}

/** Whether `call` uses `grant`: the same verb on the same resource, inside the grant's namespace. */
export function uses(call: KubeCall, grant: Grant): boolean {
  return (
    call.kind === "resource" &&
    call.group === grant.group &&
    resourceName(call) === grant.resource &&
    call.verb === grant.verb &&
    (grant.namespace === null || grant.namespace === call.namespace)
  );
}

/** `list nodes`, `create pods/eviction in default`, `get /version`: a call as a line of a failure message. */
export function describeCall(call: KubeCall): string {
  if (call.kind === "non-resource") return `${call.verb} ${call.path}`;
  const group = call.group === "" ? "" : ` (API group ${call.group})`;
  return `${call.verb} ${resourceName(call)}${group}${call.namespace === null ? "" : ` in ${call.namespace}`}`;
}
