// Bundles each of src/'s modules that re-export a package (the only module that imports it) over tsc's output in
// dist/ with the package's own files, so that node loads one file instead of the package's hundreds; minified, names
// kept (errors and classes print as they did). Each package remains a dependency in package.json.
// - src/adapters/kube-client.ts: @kubernetes/client-node's index imports every generated API and model (some 2,900
//   files, 21 MB of JavaScript that V8 keeps as source text on the heap); bundled from kintsugi's few imports, unused
//   APIs drop out. The library's dependencies stay external, installed with it.
// - src/graphql/apollo-server.ts: Apollo Server and @graphql-tools/schema (with @graphql-tools/utils, 130 modules);
//   graphql stays external, the one instance graphql-ws, the sabakan client and the schema share.
// - src/support/zod.ts: zod (95 modules).
// - src/domain/shared/yaml.ts: yaml (some 70 CommonJS files).
// - src/graphql/prom-client.ts: prom-client with its dependencies (@opentelemetry/api, tdigest, bintrees).
// - src/adapters/ws.ts: ws (its CommonJS files, each translated apart when an ES module imports the package).
// A serve loaded them in about 0.25 s of CPU less (0.44 -> 0.27 s for Apollo's, 0.23 -> 0.15 s for zod's, each with
// node's start). yaml's, prom-client's and ws's imports took 0.06 -> 0.02 s, 0.07 -> 0.03 s and 0.08 -> 0.02 s
// (measured in a running process, node's start not counted); a serve's start, 0.06-0.08 s less for the three. Each
// test process that loads the server gains the same (scripts/build-tests.mjs links these bundles).
import { readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const kubeLibrary = JSON.parse(readFileSync(require.resolve("@kubernetes/client-node/package.json"), "utf8"));
/** The packages the Kubernetes client's bundle leaves to node: the library's dependencies (build-cli.mjs too). */
export const KUBE_CLIENT_EXTERNALS = Object.keys(kubeLibrary.dependencies ?? {});

// The Kubernetes library's package.json does not say its modules are free of side effects, so esbuild would keep every
// module its index imports, and with them their imports of other packages (tar-fs for `cp`, ...) that then load at
// start. They are free of them (generated APIs and models, and helpers that act only when called): what kintsugi does
// not call drops out.
const kubeClientWithoutSideEffects = {
  name: "kubernetes-client-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === "resolving" || !args.importer.includes("@kubernetes/client-node")) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "resolving" });
      if (resolved.errors.length > 0 || resolved.external || !resolved.path.includes("@kubernetes/client-node")) return resolved;
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * esbuild's options for a bundle node loads as an ES module (these and the CLI's, scripts/build-cli.mjs): minified,
 * names kept, and a require for a CommonJS dependency's require() of node's modules.
 */
export const NODE_ESM_BUNDLE = {
  allowOverwrite: true,
  bundle: true,
  minify: true,
  keepNames: true,
  legalComments: "eof",
  platform: "node",
  target: ["node20"],
  format: "esm",
  banner: { js: 'import { createRequire as __kintsugiCreateRequire } from "node:module"; const require = __kintsugiCreateRequire(import.meta.url);' },
};

/** Each bundle: its module under src/ and dist/ (the same path, .ts and .js), what it leaves to node, its plugins. */
export const PACKAGE_BUNDLES = [
  { module: "adapters/kube-client", external: KUBE_CLIENT_EXTERNALS, plugins: [kubeClientWithoutSideEffects] },
  { module: "graphql/apollo-server", external: ["graphql"], plugins: [] },
  { module: "support/zod", external: [], plugins: [] },
  { module: "domain/shared/yaml", external: [], plugins: [] },
  { module: "graphql/prom-client", external: [], plugins: [] },
  { module: "adapters/ws", external: ["bufferutil", "utf-8-validate"], plugins: [] },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const sizes = await Promise.all(
    PACKAGE_BUNDLES.map(async ({ module, external, plugins }) => {
      const outfile = join(root, "dist", `${module}.js`);
      await build({
        ...NODE_ESM_BUNDLE,
        entryPoints: [join(root, "src", `${module}.ts`)],
        outfile,
        external,
        plugins,
        logLevel: "warning",
      });
      rmSync(`${outfile}.map`, { force: true });
      return `dist/${module}.js ${Math.round(statSync(outfile).size / 1024)} KiB`;
    }),
  );
  console.log(`packages: bundled ${sizes.join(", ")} in ${Date.now() - started} ms`);
}
