import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { moduleRecorder } from "../support/module-recorder.js";
import { serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

// What the real `kintsugi serve` (the built binary) loads, recorded by a module hook as it starts: a library that a
// configuration does not use is not loaded (bench:memory measured the cost). etcd3 and gRPC (about 25 MB of resident
// memory) load only for store: etcd; @kubernetes/client-node's own files never, since the build bundles the part
// kintsugi uses (its index alone is some 70 MB).

/** The packages the build bundles (scripts/build-package-bundles.mjs): Apollo Server's, zod, yaml, prom-client's, ws. */
const BUNDLED_PACKAGES = [
  "@apollo/server",
  "@graphql-tools/schema",
  "@graphql-tools/utils",
  "@graphql-tools/merge",
  "zod",
  "yaml",
  "prom-client",
  "@opentelemetry/api",
  "ws",
];

const packagesOf = (paths: readonly string[]) => new Set(paths.flatMap((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1] ?? []));

describe("the libraries kintsugi serve loads (the real binary)", () => {
  let kube: FakeKubeApi;
  before(async () => {
    kube = await startFakeKubeApi();
  });
  after(async () => {
    await kube.close();
  });

  /** The packages a server on a fresh SQLite database loads until it serves, with `extra` in its config. */
  async function packagesLoaded(extra: string): Promise<Set<string>> {
    const dir = tempDir("kintsugi-server-modules-");
    try {
      writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir.path, "k.db"))}\n${extra}`);
      const recorder = moduleRecorder(dir.path);
      const server = serveProcess(["--config", join(dir.path, "kintsugi.yaml")], dir.path, recorder.env);
      try {
        await server.url;
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
      return packagesOf(recorder.loaded());
    } finally {
      dir.remove();
    }
  }

  const cases = [
    {
      name: "SQLite, no Kubernetes",
      extra: () => "",
      // Apollo Server, @graphql-tools, zod, yaml, prom-client and ws load only as the build's bundles of them: their
      // packages loading too would be a second copy (scripts/build-package-bundles.mjs).
      absent: ["etcd3", "@grpc/grpc-js", "@kubernetes/client-node", ...BUNDLED_PACKAGES],
      present: ["better-sqlite3", "graphql"],
    },
    {
      name: "SQLite with Kubernetes",
      extra: () => `kubernetes:\n  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}\n`,
      absent: ["etcd3", "@grpc/grpc-js", "@kubernetes/client-node", ...BUNDLED_PACKAGES],
      // The bundled client's own dependencies load as packages of their own.
      present: ["better-sqlite3", "js-yaml"],
    },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const packages = await packagesLoaded(c.extra());
      for (const name of c.present) assert.ok(packages.has(name), `${name} should load (the recorder sees it): ${[...packages].join(", ")}`);
      assert.deepEqual(
        c.absent.filter((name) => packages.has(name)),
        [],
      );
    });

  // A config serve refuses is refused before the server's modules load: an operator's typo (and each refusal test)
  // costs the config's schemas, not the API, the store and the runner.
  it("a config it refuses loads the config's schemas only", async () => {
    const dir = tempDir("kintsugi-server-modules-");
    try {
      writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\nno_such_key: 1\n`);
      const recorder = moduleRecorder(dir.path);
      const server = serveProcess(["--config", "kintsugi.yaml"], dir.path, recorder.env);
      assert.equal(await server.exitCode(), 1);
      assert.match(server.stderr(), /no_such_key/);
      const loaded = recorder.loaded();
      const packages = packagesOf(loaded);
      // zod, yaml, Apollo Server and prom-client load as the build's bundles of them (scripts/build-package-bundles.mjs).
      const bundles = loaded
        .filter((p) => /\/dist\/(support\/zod|domain\/shared\/yaml|graphql\/apollo-server|graphql\/prom-client)\.js$/.test(p))
        .map((p) => p.replace(/.*\/dist\//, "dist/"))
        .sort();
      assert.deepEqual(
        bundles,
        ["dist/domain/shared/yaml.js", "dist/support/zod.js"],
        "the config (yaml) and its schemas (zod) load, not Apollo Server nor the metrics",
      );
      assert.deepEqual(
        ["graphql", "zod", "yaml", "@apollo/server", "better-sqlite3", "ws", "prom-client", "pino"].filter((name) => packages.has(name)),
        [],
      );
    } finally {
      dir.remove();
    }
  });
});
