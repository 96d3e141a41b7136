// Bundles the CLI's front (tsc's dist/cli/main.js: the command tree and what the operator commands run) into one
// file, dist/kintsugi-cli.js, which bin/kintsugi.js loads. Loading some 50 small ES modules one by one costs a command
// about as much CPU as node's own start; one file halves it (bench:cli). What a command imports on demand (the
// server for serve, the stores for db, the alert bridge, graphql-ws for watch) stays in dist/ as tsc wrote it and is
// imported from there, so the server runs the same modules whichever way it is started. cli-error.js stays outside
// too: the modules loaded on demand throw its CliError, which the front tells apart from unexpected errors. The bundle
// sits in dist/, as tsc's files one folder under the package, so version.js's ../package.json is the package's.
import { statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const outfile = join(dist, "kintsugi-cli.js");
/** Modules every side must share (see above), by their path under dist/. */
const SHARED = new Set(["cli/cli-error.js"]);

/** The import of `path` from the bundle, as a specifier relative to dist/. */
const fromBundle = (path) => `./${relative(dist, path).split("\\").join("/")}`;

/** esbuild's options for the bundle (test/cli/cli-modules.test.ts builds with them too, to see what goes in). */
export const CLI_BUILD = {
  entryPoints: [join(dist, "cli", "main.js")],
  outfile,
  allowOverwrite: true,
  bundle: true,
  minify: true,
  keepNames: true,
  legalComments: "eof",
  platform: "node",
  target: ["node20"],
  format: "esm",
  // commander is CommonJS: its require() of node's modules needs a require in an ES module.
  banner: { js: 'import { createRequire as __kintsugiCreateRequire } from "node:module"; const require = __kintsugiCreateRequire(import.meta.url);' },
  plugins: [
    {
      name: "load-on-demand-from-dist",
      setup(build) {
        build.onResolve({ filter: /.*/ }, async (args) => {
          if (args.pluginData === "resolving") return undefined;
          const bare = !args.path.startsWith(".") && !args.path.startsWith("/");
          if (args.kind === "dynamic-import") {
            if (bare) return { path: args.path, external: true };
            return { path: fromBundle(join(args.resolveDir, args.path)), external: true };
          }
          if (bare) return undefined;
          const resolved = join(args.resolveDir, args.path);
          if (SHARED.has(relative(dist, resolved).split("\\").join("/"))) return { path: fromBundle(resolved), external: true };
          return undefined;
        });
      },
    },
  ],
  logLevel: "warning",
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await build(CLI_BUILD);
  const bytes = statSync(outfile).size;
  console.log(`cli: bundled dist/kintsugi-cli.js in ${Date.now() - started} ms (${Math.round(bytes / 1024)} KiB)`);
}
