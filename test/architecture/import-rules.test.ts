import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { PACKAGE_BUNDLES } from "../../scripts/build-package-bundles.mjs";

// The map of src/ (docs/architecture.md) as tables this test holds the code to. Where the map and these tables
// differ, the tables are right and the map is to be fixed.

/** What each top-level part of src/ may import of ours besides itself. An entry is a folder ("store") or a file. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // Pure rules: nothing of ours.
  domain: [],
  // Helpers over node's timers and signals that several I/O layers share; nothing of ours.
  support: [],
  version: [],
  // Roles, tokens and access policies: leaf types and checks the config, the edge and the CLI share.
  auth: [],
  // YAML into domain types; the access policy is checked into auth's types. Files it names are read with a bound; its
  // schemas are zod's (support's one import of zod).
  config: ["domain", "auth", "support/bounded-read.ts", "support/zod.ts"],
  // The drivers take their own config sections (etcd's connection, poll record retention) and log through support/.
  store: ["domain", "config", "support"],
  // Thin clients; the Kubernetes ones read the kubeconfig section (and its file, with a bound). Processes spawned here start one a turn of the
  // event loop (support's turn quota).
  adapters: ["domain", "config", "support/turn-quota.ts", "support/bounded-read.ts"],
  // The sabakan gateway forwards through the sabakan gateway client.
  gateway: ["domain", "adapters"],
  // Leader election over the store port.
  ha: ["domain", "store", "support"],
  // The runner acts on the world through the ports it declares, never a concrete adapter.
  runner: ["domain", "store", "adapters/ports.ts", "support"],
  // The API: resolvers over the store port, the edge's access checks, its limits from the config, and the sabakan
  // gateway (sabakan's own root fields, forwarded). The runner's workers reach it through its context's interfaces.
  // A burst of requests starts its operations a few a turn of the event loop (support's turn quota).
  // Its WebSocket server is ws's, loaded through the adapters' one import of it.
  graphql: ["domain", "store", "auth", "config", "gateway", "adapters/sabakan-gateway-client.ts", "adapters/ws.ts", "support/turn-quota.ts"],
  // The chat alert bridge is a graphql-ws client over the shared TLS transport.
  alerts: ["domain", "adapters/tls-transport.ts", "adapters/tls-websocket.ts"],
  // The CLI is a composition root too: `serve` starts main, the db commands open stores. `repair-queue watch` asks,
  // as the status page does, whether its subscriptions listen: the client's half of the API's operation order.
  cli: ["domain", "support", "version", "auth", "config", "store", "adapters", "alerts", "wiring", "main", "graphql/when-listening.ts"],
  // The simulator runs the real rules and workers over an in-memory store: its own composition root.
  sim: ["domain", "support", "config", "store", "adapters/ports.ts", "runner"],
  // The composition roots wire everything.
  wiring: ["domain", "support", "version", "auth", "config", "store", "adapters", "gateway", "ha", "runner", "graphql"],
  main: ["domain", "support", "version", "auth", "config", "store", "adapters", "gateway", "ha", "runner", "graphql", "wiring"],
};

/**
 * The modules of node and the packages each part may import, with the reason; a subpath counts as its module
 * (`node:fs/promises` is `node:fs`, `@apollo/server/errors` is `@apollo/server`). A list of names limits the import to
 * those names. src/domain/ does no I/O: no module that reads a file, opens a socket, runs a process or reads the clock.
 */
const PACKAGES: Readonly<Record<string, Readonly<Record<string, string | { readonly names: readonly string[]; readonly why: string }>>>> = {
  domain: {
    "node:net": { names: ["isIP", "isIPv4", "isIPv6"], why: "pure checks of an address's text" },
    yaml: {
      names: ["parse", "parseDocument", "stringify"],
      why: "YAML text to values and back, no I/O: the one import of yaml (domain/shared/yaml.ts), which the build bundles",
    },
  },
  support: {
    pino: "the one logger interface is pino's Logger type",
    "node:fs": "reads a file a config or a command names, with a bound",
    zod: "the one import of zod (config's schemas, the store's checks), which the build bundles",
  },
  version: { "node:fs": "reads the package's version from package.json" },
  auth: {
    graphql: "access errors are GraphQL errors",
    "node:crypto": "token digests compared in constant time",
    "node:net": "browser rules tell an IP host from a name; client certificates read the socket",
    "node:tls": "client certificates come from the TLS socket",
  },
  config: {
    "node-cron": "schedules are checked by the library that runs them",
    "node:crypto": "certificates are checked as X.509",
    "node:fs": "reads the config file and the files it names",
    "node:os": "the home folder of a path written with ~",
    "node:path": "paths relative to the config file",
    "node:tls": "TLS files are checked as the TLS stack reads them",
  },
  store: {
    "better-sqlite3": "the SQLite driver",
    etcd3: "the etcd driver",
    "node:crypto": "write ids, snapshot digests, file names",
    "node:fs": "the SQLite file, its lock and backups",
    "node:path": "the SQLite file's folder",
    "node:zlib": "compressed backups",
  },
  adapters: {
    "@kubernetes/client-node": "the Kubernetes client",
    cockatiel: "etcd3's fault handling: which etcd members calls skip",
    etcd3: "the etcd client, which the store and the leader election share",
    "graphql-request": "the sabakan client",
    "node:child_process": "repair commands run as child processes",
    "node:crypto": "random names (eviction dry runs, temporary files)",
    "node:fs": "kubeconfig and TLS files, command logs",
    "node:http": "the Kubernetes and webhook transports",
    "node:https": "the Kubernetes and webhook transports",
    "node:net": "the lifeline pipe that binds a command to its replica is a socket",
    "node:os": "the home folder for the kubeconfig",
    "node:path": "file paths",
    "node:stream": "the command spawner's pipes",
    "node:tls": "the system's CAs, for etcd over https without a CA of its own",
    "node:url": "the path of the command spawner's script",
    ws: "WebSocket clients and the API's server: the one import of ws (adapters/ws.ts), which the build bundles",
  },
  gateway: { graphql: "forwards GraphQL documents" },
  ha: { etcd3: "the leader election is etcd's", "node:perf_hooks": "a monotonic clock for lease deadlines" },
  runner: { "node-cron": "the sabakan poll's schedule", "node:crypto": "the drain back-off's random source" },
  graphql: {
    "@apollo/server": "the GraphQL server",
    "@escape.tech/graphql-armor-max-aliases": "the operation limits",
    "@escape.tech/graphql-armor-max-depth": "the operation limits",
    "@escape.tech/graphql-armor-max-directives": "the operation limits",
    "@graphql-tools/schema": "the executable schema",
    graphql: "the schema and its execution",
    "graphql-ws": "subscriptions",
    "node:fs": "the schema files, the GraphiQL and status pages",
    "node:http": "the HTTP server",
    "node:https": "the HTTPS server",
    "node:path": "the pages' files",
    "node:perf_hooks": "the event loop's delay, a metric",
    "node:url": "the schema files' paths",
    "node:worker_threads": "the what-if replay runs in a worker",
    "prom-client": "the metrics: the one import of prom-client (graphql/prom-client.ts), which the build bundles",
    ws: "the WebSocket server's types (its class through adapters/ws.ts)",
  },
  alerts: { "graphql-ws": "the bridge subscribes to kintsugi" },
  cli: {
    commander: "the command line",
    etcd3: "the etcd client's type, for the db commands",
    "graphql-ws": "repair-queue watch subscribes",
    "node:fs": "files the commands read and write",
    "node:http": "the operator commands are GraphQL requests over HTTP",
    "node:https": "... or HTTPS, loaded for an https server",
    "node:path": "their paths",
    ws: "the subscription socket's type",
    "node:crypto": "the digest of a bundle's source its code cache must match",
    "node:module": "a require for a bundle run with its code cache",
    "node:url": "the bundle's file URL, for its import.meta.url and import()",
    "node:vm": "V8's code cache for the on-demand bundles",
  },
  sim: {
    "node:fs": "writes a failing seed's report, and the mutants' scratch copies of the tree",
    "node:os": "the temporary folder",
    "node:path": "its path",
    "node:child_process": "npm run sim:mutants runs the sweep on each mutant's copy in a process of its own",
  },
  wiring: {
    etcd3: "the etcd client's type",
    graphql: "the schema, for the start checks",
    "node:http": "the server's listener",
    "node:net": "the listen address is reserved before start",
    pino: "the logger",
  },
  main: { "node:crypto": "the id of this run of the replica, in its commands' markers", pino: "the logger" },
};

/**
 * The edges between feature folders of src/domain/ (besides `shared/`, which every folder may read and which reads
 * none), each with its reason. A new edge needs its row here and in the map.
 */
const DOMAIN_EDGES: Readonly<Record<string, string>> = {
  "alerts -> intake": "alert wording reads intake's skip kinds and what a poll deferred",
  "cluster -> sabakan": "generation asks sabakan with its machine variables",
  "escalation -> queue": "a repeat offender is counted from its finished repairs and its entries",
  "health -> escalation": "remediation replaces a repeat offender's operation or holds it",
  "health -> holds": "remediation skips a machine under a hold",
  "health -> intake": "remediation applies the trigger's per-rack limit and escalation input",
  "health -> queue": "remediation reads the queue and the repair config, and makes new entries",
  "intake -> escalation": "the trigger escalates repeat offenders",
  "intake -> holds": "the trigger skips a machine under a hold",
  "intake -> queue": "the trigger reads the queue and the repair config, and makes new entries",
  "intake -> sabakan": "the trigger reads sabakan's machines",
  "pacing -> proof": "pacing counts proven and unproven repairs",
  "pacing -> queue": "pacing counts the entries in progress",
  "queue -> escalation": "the repair config holds escalation's",
  "queue -> holds": "a held machine's entry runs nothing",
  "queue -> pacing": "the decision starts repairs within pacing's allowances; the repair config holds pacing's",
  "queue -> proof": "an entry carries its evidence; the repair config holds the proof requirement",
  "queue -> sabakan": "a command's context names the machine's BMC",
  "replay -> health": "the replay runs remediation again over its records",
  "replay -> holds": "replay records keep the holds that were read",
  "replay -> intake": "the replay runs intake again over its records",
  "replay -> pacing": "the replay schedules repairs within pacing's allowances",
  "replay -> queue": "the replay reads the repair config and the finished repairs",
  "replay -> sabakan": "poll records keep sabakan's machines",
  "stats -> queue": "statistics of the finished repairs",
};

/** The two-way edges between feature folders, with the reason; any other circle fails. */
const DOMAIN_CIRCLES: Readonly<Record<string, string>> = {
  "escalation <-> queue": "the queue's repair config holds escalation's config, and escalation counts the queue's repairs",
  "pacing <-> queue": "the decision asks pacing, and pacing counts the queue's entries",
};

/** The drivers: nothing outside src/store/ imports them, but for these files, each with its reason. */
const DRIVERS = ["store/kv/etcd/", "store/kv/sqlite/"];
const DRIVER_IMPORTERS: Readonly<Record<string, string>> = {
  "wiring/stores.ts": "opens the store the config names",
  "wiring/etcd-backend.ts": "opens the etcd store and its leader election, loaded by wiring/stores.ts only for store: etcd",
  "cli/db-report.ts": "db check reports a SQLite file's schema version against the newest",
  "sim/simulation.ts": "the simulator, a composition root of its own, opens an in-memory SQLite store",
};

interface Import {
  /** Both relative to src/, with forward slashes. */
  readonly from: string;
  readonly to: string;
}

interface PackageImport {
  readonly from: string;
  /** The module as written, less its subpath: `node:fs`, `yaml`, `@apollo/server`. */
  readonly module: string;
  /** The names imported, or null for a whole module (a namespace, a default, a side effect, `import()`). */
  readonly names: readonly string[] | null;
  /** Types only (`import type`, `export type`): nothing of the module loads. */
  readonly typeOnly?: boolean;
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

/** A module specifier less its subpath. */
function moduleOf(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** Every import of a file (import, import type, export from, import(), require()): its specifier and names. */
function specifiersOf(file: string): Array<{ spec: string; names: string[] | null; typeOnly: boolean }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: Array<{ spec: string; names: string[] | null; typeOnly: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let names: string[] | null = null;
      let typeOnly: boolean;
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        const bindings = clause?.namedBindings;
        if (clause && !clause.name && bindings && ts.isNamedImports(bindings)) {
          names = bindings.elements.map((e) => (e.propertyName ?? e.name).text);
          typeOnly = clause.isTypeOnly || bindings.elements.every((e) => e.isTypeOnly);
        } else typeOnly = clause?.isTypeOnly ?? false;
      } else {
        if (node.exportClause && ts.isNamedExports(node.exportClause)) names = node.exportClause.elements.map((e) => (e.propertyName ?? e.name).text);
        typeOnly = node.isTypeOnly;
      }
      out.push({ spec: node.moduleSpecifier.text, names, typeOnly });
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) {
        out.push({ spec: (node.arguments[0] as ts.StringLiteral).text, names: null, typeOnly: false });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The imports of every file: ours resolved to files, the others as modules. */
function importsOf(files: readonly string[]): { ours: Import[]; packages: PackageImport[] } {
  const ours: Import[] = [];
  const packages: PackageImport[] = [];
  for (const file of files) {
    for (const { spec, names, typeOnly } of specifiersOf(file)) {
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        assert.ok(existsSync(target), `${fromSrc(file)} imports ${spec}, which resolves to no file`);
        ours.push({ from: fromSrc(file), to: fromSrc(target) });
      } else {
        packages.push({ from: fromSrc(file), module: moduleOf(spec), names, typeOnly });
      }
    }
  }
  return { ours, packages };
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

/** The package imports a part's row does not allow, as "from -> module" (with the names that are not allowed). */
function packageBreaches(imports: readonly PackageImport[], table: typeof PACKAGES): string[] {
  return imports.flatMap(({ from, module, names }) => {
    const rule = table[partOf(from)]?.[module];
    if (rule === undefined) return [`${from} -> ${module}`];
    if (typeof rule === "string") return [];
    const extra = names === null ? ["*"] : names.filter((n) => !rule.names.includes(n));
    return extra.length === 0 ? [] : [`${from} -> ${module} (${extra.join(", ")})`];
  });
}

/** Each package a bundled module (scripts/build-package-bundles.mjs) takes into its bundle, and that module. */
function bundledPackages(packages: readonly PackageImport[], bundles: typeof PACKAGE_BUNDLES): Map<string, string> {
  return new Map(
    bundles.flatMap(({ module, external }) =>
      packages.filter((p) => p.from === `${module}.ts` && !p.typeOnly && !external.includes(p.module)).map((p) => [p.module, p.from] as const),
    ),
  );
}

/** The imports that would load a bundled package's own files beside its bundle, as "from -> module". */
const secondCopies = (packages: readonly PackageImport[], bundled: ReadonlyMap<string, string>) =>
  packages.filter((p) => !p.typeOnly && bundled.has(p.module) && bundled.get(p.module) !== p.from).map((p) => `${p.from} -> ${p.module}`);

/** The feature folder of a path under domain/, or null for another part. */
const featureOf = (path: string) => (path.startsWith("domain/") ? (path.split("/")[1] ?? null) : null);

/** The edges between feature folders of domain/ that `imports` make, as "a -> b", each once, sorted. */
function domainEdges(imports: readonly Import[]): string[] {
  const edges = imports.flatMap(({ from, to }) => {
    const a = featureOf(from);
    const b = featureOf(to);
    return a && b && a !== b && b !== "shared" ? [`${a} -> ${b}`] : [];
  });
  return [...new Set(edges)].sort();
}

/** The pairs of feature folders that import each other, as "a <-> b" (a before b), sorted. */
function domainCircles(edges: readonly string[]): string[] {
  const set = new Set(edges);
  return edges
    .map((e) => e.split(" -> ") as [string, string])
    .filter(([a, b]) => a < b && set.has(`${b} -> ${a}`))
    .map(([a, b]) => `${a} <-> ${b}`);
}

/** The files of a cycle of imports, if any, as "a -> b -> a"; searched among `imports` only. */
function fileCycles(imports: readonly Import[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, "open" | "done">();
  const found: string[] = [];
  const walk = (file: string, path: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      found.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const to of next.get(file) ?? []) walk(to, [...path, file]);
    state.set(file, "done");
  };
  for (const file of [...next.keys()].sort()) walk(file, []);
  return found;
}

/** The imports of a driver from outside src/store/ by a file not in `exceptions`. */
function driverLeaks(imports: readonly Import[], exceptions: Readonly<Record<string, string>>): string[] {
  return imports
    .filter(({ from, to }) => partOf(from) !== "store" && DRIVERS.some((d) => to.startsWith(d)) && !(from in exceptions))
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe("the imports of src/ hold what the map says (docs/architecture.md)", () => {
  const files = sourceFiles(SRC);
  const { ours: imports, packages } = importsOf(files);

  it("finds the imports it checks", () => {
    assert.ok(files.length > 300, `only ${files.length} files under src/`);
    assert.ok(imports.length > 1000, `only ${imports.length} imports`);
    assert.ok(packages.length > 100, `only ${packages.length} package imports`);
  });

  it("places every part of src/ in the tables", () => {
    const parts = [...new Set(files.map((f) => partOf(fromSrc(f))))].sort();
    assert.deepEqual(
      parts.filter((p) => !(p in ALLOWED) || !(p in PACKAGES)),
      [],
      "a new folder needs its rows (what it may import) in ALLOWED and PACKAGES",
    );
  });

  for (const part of Object.keys(ALLOWED)) {
    it(`${part} imports only ${ALLOWED[part]!.join(", ") || "itself"} of ours`, () => {
      assert.deepEqual(
        crossings(
          imports.filter((i) => partOf(i.from) === part),
          ALLOWED,
        ),
        [],
      );
    });
    it(`${part} imports only the modules of its row: ${Object.keys(PACKAGES[part] ?? {}).join(", ") || "none"}`, () => {
      assert.deepEqual(
        packageBreaches(
          packages.filter((i) => partOf(i.from) === part),
          PACKAGES,
        ),
        [],
      );
    });
  }

  it("every module of a part's row is still imported there (the table does not outlive its reasons)", () => {
    const used = new Set(packages.map((p) => `${partOf(p.from)} ${p.module}`));
    assert.deepEqual(
      Object.entries(PACKAGES).flatMap(([part, row]) =>
        Object.keys(row)
          .filter((m) => !used.has(`${part} ${m}`))
          .map((m) => `${part} ${m}`),
      ),
      [],
    );
  });

  const edges = domainEdges(imports);

  it("every edge between domain feature folders is in the table, with its reason", () => {
    assert.deepEqual(
      edges.filter((e) => !(e in DOMAIN_EDGES)),
      [],
    );
  });

  it("every edge of the table is still made (the table does not outlive its reasons)", () => {
    assert.deepEqual(
      Object.keys(DOMAIN_EDGES).filter((e) => !edges.includes(e)),
      [],
    );
  });

  it("shared/ reads no feature folder", () => {
    assert.deepEqual(
      imports.filter(({ from, to }) => featureOf(from) === "shared" && featureOf(to) !== null && featureOf(to) !== "shared").map((i) => `${i.from} -> ${i.to}`),
      [],
    );
  });

  it("no two feature folders import each other but the listed ones", () => {
    assert.deepEqual(domainCircles(edges), Object.keys(DOMAIN_CIRCLES).sort());
  });

  it("no file of src/domain/ imports itself through others", () => {
    assert.deepEqual(fileCycles(imports.filter((i) => partOf(i.from) === "domain" && partOf(i.to) === "domain")), []);
  });

  it("nothing outside src/store/ imports a driver, but for the listed composition roots", () => {
    assert.deepEqual(driverLeaks(imports, DRIVER_IMPORTERS), []);
  });

  // The build bundles each of these modules with the packages it imports (scripts/build-package-bundles.mjs): another
  // module's import of one of those packages would load the package's own files too, a second copy of it.
  it("a package the build bundles is loaded only through its bundled module", () => {
    const bundled = bundledPackages(packages, PACKAGE_BUNDLES);
    assert.ok(bundled.size >= PACKAGE_BUNDLES.length, `the bundled modules import ${[...bundled.keys()].join(", ")}`);
    assert.deepEqual(secondCopies(packages, bundled), []);
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
      imports: [{ from: "runner/a.ts", to: "store/kv/sqlite/x.ts" }],
      crossings: [],
      driverLeaks: ["runner/a.ts -> store/kv/sqlite/x.ts"],
    },
    { name: "the store's own core importing a driver", imports: [{ from: "store/copy/a.ts", to: "store/kv/sqlite/x.ts" }], crossings: [], driverLeaks: [] },
    { name: "a listed composition root importing a driver", imports: [{ from: "wiring/stores.ts", to: "store/kv/etcd/x.ts" }], crossings: [], driverLeaks: [] },
    {
      name: "the CLI naming a driver's error",
      imports: [{ from: "cli/main.ts", to: "store/kv/sqlite/database.ts" }],
      crossings: [],
      driverLeaks: ["cli/main.ts -> store/kv/sqlite/database.ts"],
    },
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

  const packageCases: Array<{ name: string; imports: PackageImport[]; breaches: string[] }> = [
    { name: "domain reading a file", imports: [{ from: "domain/a.ts", module: "node:fs", names: ["readFileSync"] }], breaches: ["domain/a.ts -> node:fs"] },
    { name: "domain's pure address checks", imports: [{ from: "domain/a.ts", module: "node:net", names: ["isIPv4", "isIP"] }], breaches: [] },
    {
      name: "domain opening a socket",
      imports: [{ from: "domain/a.ts", module: "node:net", names: ["isIPv4", "createConnection"] }],
      breaches: ["domain/a.ts -> node:net (createConnection)"],
    },
    { name: "domain taking all of node:net", imports: [{ from: "domain/a.ts", module: "node:net", names: null }], breaches: ["domain/a.ts -> node:net (*)"] },
    {
      name: "domain asking sabakan",
      imports: [{ from: "domain/a.ts", module: "graphql-request", names: ["request"] }],
      breaches: ["domain/a.ts -> graphql-request"],
    },
    { name: "the store's drivers", imports: [{ from: "store/kv/sqlite/a.ts", module: "better-sqlite3", names: null }], breaches: [] },
    {
      name: "the runner opening SQLite",
      imports: [{ from: "runner/a.ts", module: "better-sqlite3", names: null }],
      breaches: ["runner/a.ts -> better-sqlite3"],
    },
  ];
  for (const c of packageCases) it(c.name, () => assert.deepEqual(packageBreaches(c.imports, PACKAGES), c.breaches));

  it("finds a bundled package imported beside its bundle, not a type-only import of it", () => {
    const imports: PackageImport[] = [
      { from: "domain/shared/yaml.ts", module: "yaml", names: ["parse"] },
      { from: "config/a.ts", module: "yaml", names: null },
      { from: "config/b.ts", module: "yaml", names: ["Document"], typeOnly: true },
      { from: "graphql/c.ts", module: "graphql", names: ["parse"] },
    ];
    const bundled = bundledPackages(imports, [{ module: "domain/shared/yaml", external: [] }]);
    assert.deepEqual([...bundled], [["yaml", "domain/shared/yaml.ts"]]);
    assert.deepEqual(secondCopies(imports, bundled), ["config/a.ts -> yaml"]);
  });

  it("a subpath is its module", () => {
    assert.deepEqual(["node:fs/promises", "@apollo/server/errors", "graphql-ws/use/ws", "yaml"].map(moduleOf), [
      "node:fs",
      "@apollo/server",
      "graphql-ws",
      "yaml",
    ]);
  });

  it("finds a new edge between domain folders, a circle, and a circle of files", () => {
    const imports: Import[] = [
      { from: "domain/queue/a.ts", to: "domain/stats/b.ts" },
      { from: "domain/stats/b.ts", to: "domain/queue/a.ts" },
      { from: "domain/stats/b.ts", to: "domain/shared/c.ts" },
    ];
    const edges = domainEdges(imports);
    assert.deepEqual(edges, ["queue -> stats", "stats -> queue"]);
    assert.deepEqual(
      edges.filter((e) => !(e in DOMAIN_EDGES)),
      ["queue -> stats"],
    );
    assert.deepEqual(domainCircles(edges), ["queue <-> stats"]);
    assert.deepEqual(fileCycles(imports), ["domain/queue/a.ts -> domain/stats/b.ts -> domain/queue/a.ts"]);
  });
});
