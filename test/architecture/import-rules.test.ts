import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";

// The one-way rule of /work/shared/DESIGN.md ("Imports flow one way"), folder by folder: what each top-level part
// of src/ may import besides itself. An entry is a folder ("store") or one file ("adapters/ports.ts").
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // Pure rules: nothing of ours.
  domain: [],
  // Helpers over node's timers and signals that several I/O layers share; nothing of ours.
  support: [],
  version: [],
  // Roles, tokens and access policies: leaf types and checks the config, the edge and the CLI share.
  auth: [],
  // YAML into domain types; the access policy is checked into auth's types.
  config: ["domain", "auth"],
  // The drivers take their own config sections (etcd's connection, poll record retention) and log through support/.
  store: ["domain", "config", "support"],
  // Thin clients; the Kubernetes ones read the kubeconfig section.
  adapters: ["domain", "config"],
  // The sabakan gateway forwards through the sabakan gateway client.
  gateway: ["domain", "adapters"],
  // Leader election over the store port.
  ha: ["domain", "store", "support"],
  // The runner acts on the world through the ports it declares, never a concrete adapter.
  runner: ["domain", "store", "adapters/ports.ts", "support"],
  // The API: resolvers over the store port, the edge's access checks, its limits from the config, and the sabakan
  // gateway (sabakan's own root fields, forwarded). The runner's workers reach it through its context's interfaces.
  graphql: ["domain", "store", "auth", "config", "gateway", "adapters/sabakan-gateway-client.ts"],
  // The chat alert bridge is a graphql-ws client over the shared TLS transport.
  alerts: ["domain", "adapters/tls-transport.ts", "adapters/tls-websocket.ts"],
  // The CLI is a composition root too: `serve` starts main, the db commands open stores.
  cli: ["domain", "support", "version", "auth", "config", "store", "adapters", "alerts", "wiring", "main"],
  // The simulator runs the real rules and workers over an in-memory store: its own composition root.
  sim: ["domain", "support", "config", "store", "adapters/ports.ts", "runner"],
  // The composition roots wire everything.
  wiring: ["domain", "support", "version", "auth", "config", "store", "adapters", "gateway", "ha", "runner", "graphql"],
  main: ["domain", "support", "version", "auth", "config", "store", "adapters", "gateway", "ha", "runner", "graphql", "wiring"],
};

/** The drivers: nothing outside src/store/ imports them, but for these files, each with its reason. */
const DRIVERS = ["store/sqlite/", "store/kv/"];
const DRIVER_IMPORTERS: Readonly<Record<string, string>> = {
  "wiring/stores.ts": "opens the store the config names",
  "wiring/etcd-backend.ts": "opens the etcd store and its leader election, loaded by wiring/stores.ts only for store: etcd",
  "cli/db-copy-action.ts": "db copy opens a snapshot source and target on each backend",
  "cli/db-backup-actions.ts": "db backup and db check read an etcd prefix with the etcd client",
  "cli/db-report.ts": "db check reports a SQLite file's schema version against the newest",
  "cli/main.ts": "names the drivers' open errors among the operator's errors, printed without a stack",
  "wiring/start-checks.ts": "serve and check-config check the etcd section's TLS files as the etcd client reads them",
  "sim/simulation.ts": "the simulator, a composition root of its own, opens an in-memory SQLite store",
};

interface Import {
  /** Both relative to src/, with forward slashes. */
  readonly from: string;
  readonly to: string;
}

const SRC = resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(path);
    return d.name.endsWith(".ts") ? [path] : [];
  });
}

const fromSrc = (path: string) => relative(SRC, path).split("\\").join("/");

/** Every relative import of every src/**\/*.ts (import, import type, export from, import()), resolved to its file. */
function importsOf(files: readonly string[]): Import[] {
  return files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, "utf8"), true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((spec) => spec.startsWith("."))
      .map((spec) => {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        assert.ok(existsSync(target), `${fromSrc(file)} imports ${spec}, which resolves to no file`);
        return { from: fromSrc(file), to: fromSrc(target) };
      }),
  );
}

/** The part of src/ a path belongs to: its top folder, or a root file's name without .ts. */
const partOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : posix.basename(path, ".ts"));

const allows = (entry: string, to: string) => (entry.endsWith(".ts") ? to === entry : partOf(to) === entry);

/** The imports that break the one-way rule, as "from -> to". */
function crossings(imports: readonly Import[], allowed: Readonly<Record<string, readonly string[]>>): string[] {
  return imports
    .filter(({ from, to }) => partOf(from) !== partOf(to))
    .filter(({ from, to }) => !(allowed[partOf(from)] ?? []).some((entry) => allows(entry, to)))
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** The imports of a driver from outside src/store/ by a file not in `exceptions`. */
function driverLeaks(imports: readonly Import[], exceptions: Readonly<Record<string, string>>): string[] {
  return imports
    .filter(({ from, to }) => partOf(from) !== "store" && DRIVERS.some((d) => to.startsWith(d)) && !(from in exceptions))
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe("the one-way imports (DESIGN.md), checked over every file of src/", () => {
  const files = sourceFiles(SRC);
  const imports = importsOf(files);

  it("finds the imports it checks", () => {
    assert.ok(files.length > 300, `only ${files.length} files under src/`);
    assert.ok(imports.length > 1000, `only ${imports.length} imports`);
  });

  it("places every part of src/ in the table", () => {
    const parts = [...new Set(files.map((f) => partOf(fromSrc(f))))].sort();
    assert.deepEqual(
      parts.filter((p) => !(p in ALLOWED)),
      [],
      "a new folder needs its row (what it may import) in ALLOWED",
    );
  });

  for (const part of Object.keys(ALLOWED)) {
    it(`${part} imports only ${ALLOWED[part]!.join(", ") || "itself"}`, () => {
      assert.deepEqual(
        crossings(
          imports.filter((i) => partOf(i.from) === part),
          ALLOWED,
        ),
        [],
      );
    });
  }

  it("nothing outside src/store/ imports a driver, but for the listed composition roots", () => {
    assert.deepEqual(driverLeaks(imports, DRIVER_IMPORTERS), []);
  });

  it("every listed driver importer still imports one (the list does not outlive its reasons)", () => {
    const importers = new Set(imports.filter(({ to }) => DRIVERS.some((d) => to.startsWith(d))).map((i) => i.from));
    assert.deepEqual(
      Object.keys(DRIVER_IMPORTERS).filter((f) => !importers.has(f)),
      [],
    );
  });
});

describe("the import checks themselves", () => {
  const cases: Array<{ name: string; imports: Import[]; crossings: string[]; driverLeaks: string[] }> = [
    { name: "a folder importing itself", imports: [{ from: "runner/a.ts", to: "runner/b.ts" }], crossings: [], driverLeaks: [] },
    {
      name: "domain importing the store",
      imports: [{ from: "domain/a.ts", to: "store/store-port.ts" }],
      crossings: ["domain/a.ts -> store/store-port.ts"],
      driverLeaks: [],
    },
    { name: "the runner importing a port", imports: [{ from: "runner/a.ts", to: "adapters/ports.ts" }], crossings: [], driverLeaks: [] },
    {
      name: "the runner importing a concrete adapter",
      imports: [{ from: "runner/a.ts", to: "adapters/kube-http.ts" }],
      crossings: ["runner/a.ts -> adapters/kube-http.ts"],
      driverLeaks: [],
    },
    {
      name: "the runner importing a driver",
      imports: [{ from: "runner/a.ts", to: "store/sqlite/x.ts" }],
      crossings: [],
      driverLeaks: ["runner/a.ts -> store/sqlite/x.ts"],
    },
    { name: "the store's own core importing a driver", imports: [{ from: "store/copy/a.ts", to: "store/kv/x.ts" }], crossings: [], driverLeaks: [] },
    { name: "a listed composition root importing a driver", imports: [{ from: "wiring/stores.ts", to: "store/kv/x.ts" }], crossings: [], driverLeaks: [] },
    {
      name: "main.ts, a root file",
      imports: [
        { from: "main.ts", to: "wiring/a.ts" },
        { from: "domain/a.ts", to: "main.ts" },
      ],
      crossings: ["domain/a.ts -> main.ts"],
      driverLeaks: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(crossings(c.imports, ALLOWED), c.crossings);
      assert.deepEqual(driverLeaks(c.imports, DRIVER_IMPORTERS), c.driverLeaks);
    });
  }
});
