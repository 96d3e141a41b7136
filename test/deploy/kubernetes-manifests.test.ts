import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { before, describe, it } from "node:test";
import YAML from "yaml";
import { findKubectl } from "../support/kubectl.js";
import { checkShippedConfig } from "../support/shipped-config.js";

const run = promisify(execFile);
const kubectl = findKubectl();
const path = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

type Labels = Record<string, string>;
interface Projection {
  readonly name: string;
  readonly items: ReadonlyArray<{ readonly key: string; readonly path: string }>;
}
interface Volume {
  readonly name: string;
  readonly projected?: { readonly sources: ReadonlyArray<{ readonly configMap?: Projection; readonly secret?: Projection }> };
  readonly persistentVolumeClaim?: { readonly claimName: string };
}
interface Container {
  readonly args: string[];
  readonly ports: ReadonlyArray<{ readonly name: string; readonly containerPort: number }>;
  readonly securityContext: unknown;
  readonly resources: Record<"requests" | "limits", { readonly cpu?: string; readonly memory?: string }>;
  readonly readinessProbe: { readonly httpGet: { readonly path: string } };
  readonly livenessProbe: { readonly httpGet: { readonly path: string } };
  readonly volumeMounts: ReadonlyArray<{ readonly name: string; readonly mountPath: string }>;
}
interface PodSpec {
  readonly serviceAccountName: string;
  readonly securityContext: { readonly runAsNonRoot?: boolean; readonly runAsUser?: number; readonly seccompProfile?: { readonly type: string } };
  readonly containers: readonly Container[];
  readonly volumes: readonly Volume[];
}
/** The rendered objects, with the fields the cases read (which one has which depends on its kind). */
interface K8sObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly data?: Record<string, string>;
  readonly rules?: unknown[];
  readonly spec: {
    readonly replicas?: number;
    readonly strategy?: { readonly type: string };
    readonly template?: { readonly metadata: { readonly labels: Labels }; readonly spec: PodSpec };
    readonly selector?: Labels & { readonly matchLabels?: Labels };
    readonly ports?: ReadonlyArray<{ readonly targetPort: string }>;
    readonly maxUnavailable?: number;
    readonly accessModes?: readonly string[];
  };
}

const OVERLAYS = [
  { overlay: "sqlite", replicas: 1, strategy: "Recreate", store: "sqlite", extraKinds: ["PersistentVolumeClaim"] },
  { overlay: "etcd", replicas: 3, strategy: "RollingUpdate", store: "etcd", extraKinds: [] },
] as const;

const BASE_KINDS = [
  "Namespace",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "ConfigMap",
  "Deployment",
  "Service",
  "PodDisruptionBudget",
];

/** The files a pod sees under /etc/kintsugi: the items of the projected volume mounted there. */
function etcFiles(pod: PodSpec): string[] {
  const mount = pod.containers[0]!.volumeMounts.find((m) => m.mountPath === "/etc/kintsugi");
  const volume = pod.volumes.find((v) => v.name === mount?.name);
  return (volume?.projected?.sources ?? []).flatMap((s) => (s.configMap ?? s.secret)!.items.map((i) => `/etc/kintsugi/${i.path}`));
}

/** Every string in a parsed config that names a file under /etc/kintsugi. */
const configFiles = (value: unknown): string[] =>
  typeof value === "string"
    ? value.startsWith("/etc/kintsugi/")
      ? [value]
      : []
    : value !== null && typeof value === "object"
      ? Object.values(value).flatMap(configFiles)
      : [];

for (const { overlay, replicas, strategy, store, extraKinds } of OVERLAYS) {
  describe(`kubectl kustomize deploy/kubernetes/${overlay}`, { skip: kubectl === null && "no kubectl on PATH" }, () => {
    let objects: K8sObject[] = [];
    const one = (kind: string) => {
      const found = objects.filter((o) => o.kind === kind);
      assert.equal(found.length, 1, `one ${kind}`);
      return found[0]!;
    };
    const pod = () => one("Deployment").spec.template!.spec;
    const container = () => pod().containers[0]!;
    const config = () => one("ConfigMap").data!["kintsugi.yaml"]!;

    before(async () => {
      const { stdout } = await run(kubectl!, ["kustomize", path(`deploy/kubernetes/${overlay}`)], { timeout: 60_000 });
      objects = YAML.parseAllDocuments(stdout).map((doc) => doc.toJS() as K8sObject);
    });

    it(`renders ${[...BASE_KINDS, ...extraKinds].join(", ")} and nothing else`, () => {
      assert.deepEqual(objects.map((o) => o.kind).sort(), [...BASE_KINDS, ...extraKinds].sort());
    });

    it(`runs ${replicas} replica(s), replaced by ${strategy}`, () => {
      assert.equal(one("Deployment").spec.replicas, replicas);
      assert.equal(one("Deployment").spec.strategy?.type, strategy);
    });

    it("runs as a non-root user on a read-only root filesystem, without capabilities, under the runtime's seccomp profile", () => {
      assert.equal(pod().securityContext.runAsNonRoot, true);
      assert.ok((pod().securityContext.runAsUser ?? 0) > 0);
      assert.equal(pod().securityContext.seccompProfile?.type, "RuntimeDefault");
      assert.deepEqual(container().securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    });

    it("asks for resources and is limited", () => {
      for (const kind of ["requests", "limits"] as const) {
        assert.ok(container().resources[kind].cpu && container().resources[kind].memory, `${kind}: ${JSON.stringify(container().resources)}`);
      }
    });

    it("is ready while /health answers (followers too), alive while /version does", () => {
      assert.equal(container().readinessProbe.httpGet.path, "/health");
      assert.equal(container().livenessProbe.httpGet.path, "/version");
    });

    it("has its Service and PodDisruptionBudget select its pods, and a budget that lets a node drain", () => {
      const labels = one("Deployment").spec.template!.metadata.labels;
      for (const selector of [one("Service").spec.selector!, one("PodDisruptionBudget").spec.selector!.matchLabels!]) {
        assert.ok(Object.keys(selector).length > 0);
        for (const [key, value] of Object.entries(selector)) assert.equal(labels[key], value, key);
      }
      assert.equal(one("PodDisruptionBudget").spec.maxUnavailable, 1);
      assert.equal(one("Service").spec.ports?.[0]?.targetPort, container().ports[0]?.name);
    });

    it("runs as the ServiceAccount its rules are bound to, with the rules of deploy/kubernetes/base/rbac.yaml", () => {
      assert.equal(pod().serviceAccountName, one("ServiceAccount").metadata.name);
      const shipped = YAML.parseAllDocuments(readFileSync(path("deploy/kubernetes/base/rbac.yaml"), "utf8")).map((doc) => doc.toJS() as K8sObject);
      for (const kind of ["ClusterRole", "Role"]) {
        assert.deepEqual(one(kind).rules, shipped.find((o) => o.kind === kind)?.rules, kind);
      }
      assert.equal(one("Role").metadata.namespace, "default", "node events live in default");
    });

    it(`mounts its ConfigMap, a store: ${store} config on the container's port that check-config accepts`, async () => {
      const parsed = YAML.parse(config()) as { store: string; listen: string; database?: string };
      assert.equal(parsed.store, store);
      assert.equal(Number(parsed.listen.split(":").at(-1)), container().ports[0]?.containerPort);
      assert.deepEqual(
        etcFiles(pod()).filter((f) => f === "/etc/kintsugi/kintsugi.yaml"),
        ["/etc/kintsugi/kintsugi.yaml"],
      );
      assert.deepEqual(container().args, ["serve", "--config", "/etc/kintsugi/kintsugi.yaml"]);
      const volume = pod().volumes.find((v) => v.name === "etc");
      assert.equal(volume?.projected?.sources[0]?.configMap?.name, one("ConfigMap").metadata.name, "the ConfigMap's generated name");
      const result = await checkShippedConfig(config(), "kintsugi.yaml");
      assert.equal(result.code, 0, result.stderr);
    });

    it("mounts every file its config names, and a volume for its database", () => {
      const parsed: unknown = YAML.parse(config());
      const missing = configFiles(parsed).filter((file) => !etcFiles(pod()).includes(file));
      assert.deepEqual(missing, [], "files the config names that no volume provides");
      const database = (parsed as { database?: string }).database;
      if (store === "sqlite") {
        const mount = container().volumeMounts.find((m) => database?.startsWith(`${m.mountPath}/`));
        const volume = pod().volumes.find((v) => v.name === mount?.name);
        assert.equal(volume?.persistentVolumeClaim?.claimName, one("PersistentVolumeClaim").metadata.name);
        // Mounted by one node at a time; two pods there (a replacement while the old one terminates) meet the lock.
        assert.deepEqual(one("PersistentVolumeClaim").spec.accessModes, ["ReadWriteOnce"]);
      } else {
        assert.equal(database, undefined, "no database with store: etcd");
      }
    });
  });
}
