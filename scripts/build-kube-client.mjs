// Bundles src/adapters/kube-client.ts over tsc's output (dist/adapters/kube-client.js) with @kubernetes/client-node's
// own files, so the server loads only what kintsugi calls. The library's index imports every generated API and
// model (some 2,900 files, 21 MB of JavaScript that V8 keeps as source text on the heap); bundled from kintsugi's
// few imports, unused APIs drop out and the rest is minified (names kept: errors and classes print as they did).
// The library's dependencies stay external, installed with it (it remains a dependency in package.json).
import { readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const library = JSON.parse(readFileSync(require.resolve("@kubernetes/client-node/package.json"), "utf8"));
const outfile = join(root, "dist", "adapters", "kube-client.js");
/** The packages the bundle leaves to node: the library's dependencies (scripts/build-cli.mjs leaves them too). */
export const KUBE_CLIENT_EXTERNALS = Object.keys(library.dependencies ?? {});

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await build({
    entryPoints: [join(root, "src", "adapters", "kube-client.ts")],
    outfile,
    allowOverwrite: true,
    bundle: true,
    minify: true,
    keepNames: true,
    legalComments: "eof",
    platform: "node",
    target: ["node20"],
    format: "esm",
    external: KUBE_CLIENT_EXTERNALS,
    // The library's package.json does not say its modules are free of side effects, so esbuild would keep every module
    // its index imports, and with them their imports of other packages (tar-fs for `cp`, ...) that then load at start.
    // They are free of them (generated APIs and models, and helpers that act only when called): what kintsugi does not
    // call drops out.
    plugins: [
      {
        name: "kubernetes-client-without-side-effects",
        setup(build) {
          build.onResolve({ filter: /.*/ }, async (args) => {
            if (args.pluginData === "resolving" || !args.importer.includes("@kubernetes/client-node")) return undefined;
            const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "resolving" });
            if (resolved.errors.length > 0 || resolved.external || !resolved.path.includes("@kubernetes/client-node")) return resolved;
            return { ...resolved, sideEffects: false };
          });
        },
      },
    ],
    logLevel: "warning",
  });
  rmSync(`${outfile}.map`, { force: true });
  const bytes = statSync(outfile).size;
  console.log(`kubernetes client: bundled dist/adapters/kube-client.js in ${Date.now() - started} ms (${Math.round(bytes / 1024)} KiB)`);
}
