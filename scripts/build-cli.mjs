// Bundles the CLI (over tsc's dist/) so that a command loads a file or two, not hundreds of small ES modules: loading
// them one by one cost a command about as much CPU as node's own start (bench:cli).
// - dist/kintsugi-cli.js, the front (dist/cli/main.js: the command tree and what the operator commands run), which
//   bin/kintsugi.js loads;
// - a bundle for each command that loads a part of the server on demand (ON_DEMAND: check-config with the config's
//   schemas, the db commands with the store), imported by the front when the command runs.
// What else a command imports on demand (serve's server, the alert bridge, graphql-ws for watch, etcd's client)
// stays in dist/ as tsc wrote it and is imported from there, so the server runs the same modules whichever way it is
// started. cli-error.js stays outside every bundle: one CliError class for all. The bundles sit in dist/, as tsc's
// files one folder under the package, so version.js's ../package.json is the package's.
import { statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
/** Modules every bundle shares (see above), by their path under dist/. */
const SHARED = new Set(["cli/cli-error.js"]);
/** The commands' modules bundled on their own, by their path under dist/: the bundle, under dist/. */
const ON_DEMAND = new Map([
  ["cli/check-config-action.js", "cli-check-config.js"],
  ["cli/db-copy-action.js", "cli-db-copy.js"],
  ["cli/db-backup-actions.js", "cli-db-backup.js"],
]);
/** Packages left to node: native code (SQLite), and etcd's client, which a command loads only for store: etcd. */
const EXTERNAL_PACKAGES = ["better-sqlite3", "etcd3", "@grpc/*"];

const underDist = (path) => relative(dist, path).split("\\").join("/");

/** esbuild's options for the bundle of `entry` (under dist/) into `outfile` (under dist/). */
function bundleOf(entry, outfile) {
  return {
    entryPoints: [join(dist, entry)],
    outfile: join(dist, outfile),
    allowOverwrite: true,
    bundle: true,
    minify: true,
    keepNames: true,
    legalComments: "eof",
    platform: "node",
    target: ["node20"],
    format: "esm",
    external: EXTERNAL_PACKAGES,
    // commander, yaml and node-cron are CommonJS: their require() of node's modules needs a require in an ES module.
    banner: { js: 'import { createRequire as __kintsugiCreateRequire } from "node:module"; const require = __kintsugiCreateRequire(import.meta.url);' },
    plugins: [
      {
        name: "load-on-demand",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const bare = !args.path.startsWith(".") && !args.path.startsWith("/");
            if (bare) return args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined;
            const target = underDist(join(args.resolveDir, args.path));
            if (args.kind === "dynamic-import") return { path: `./${ON_DEMAND.get(target) ?? target}`, external: true };
            if (SHARED.has(target)) return { path: `./${target}`, external: true };
            return undefined;
          });
        },
      },
    ],
    logLevel: "warning",
  };
}

/** esbuild's options for the front (test/cli/cli-modules.test.ts builds with them too, to see what goes in). */
export const CLI_BUILD = bundleOf("cli/main.js", "kintsugi-cli.js");
/** The same for each bundle loaded on demand. */
export const ON_DEMAND_BUILDS = [...ON_DEMAND].map(([entry, outfile]) => bundleOf(entry, outfile));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await Promise.all([CLI_BUILD, ...ON_DEMAND_BUILDS].map((options) => build(options)));
  const sizes = [CLI_BUILD, ...ON_DEMAND_BUILDS].map((o) => `${underDist(o.outfile)} ${Math.round(statSync(o.outfile).size / 1024)} KiB`);
  console.log(`cli: bundled in ${Date.now() - started} ms: ${sizes.join(", ")}`);
}
