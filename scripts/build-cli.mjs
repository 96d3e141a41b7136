// Bundles the CLI (over tsc's dist/) so that a command loads a file or two, not hundreds of small ES modules: loading
// them one by one cost a command about as much CPU as node's own start (bench:cli).
// - dist/kintsugi-cli.js, the front (dist/cli/main.js: the command tree and what the operator commands run), which
//   bin/kintsugi.js loads;
// - a bundle for each command that loads a part of the server on demand (ON_DEMAND: check-config with the config's
//   schemas, the db commands with the store, db check FILE with the SQLite check alone), imported by the front when
//   the command runs. Each is a CommonJS body (NAME.cjs) with V8's code cache
//   beside it (NAME.cjs.v8cache), made here under the executable's node options, and an ES module NAME.js that runs it
//   through src/cli/bundle-loader.ts: node 20 has no compile cache for ES modules, and compiling these bundles (zod,
//   yaml) at each run cost check-config and the db commands about half of node's own start in CPU (bench:cli). Without
//   a cache, or with one V8 rejects, the bundle compiles from its source.
// What an on-demand bundle imports on demand itself (the kubeconfig check, etcd's backend, the Kubernetes client) is
// in the bundle, run when it is imported: a module left in dist/ would be a second copy of the modules it shares with
// the bundle, whose classes an instanceof of the bundle's does not know (check-config listed only the kubeconfig's
// problem when it had its own ConfigError). What the front imports on demand that is no bundle (the alert bridge,
// graphql-ws for watch) stays in dist/ as tsc wrote it. cli-error.js stays outside every bundle: one CliError class for
// all. The bundles sit in dist/, beside tsc's files; each module's import.meta in a CommonJS bundle is the one of its
// file in dist/ (IMPORT_META_OF), so that what it reads or starts beside it (package.json) is found where it is.
// serve's server stays tsc's modules: bundled like these, it started with 0.7 s of CPU instead of 1.5 s, but held
// 12-22 MB more resident under bench:memory's 1,000 subscribers (161-168 MB with Kubernetes at 100,000 history rows,
// against 145-151 MB and the goal's 150 MB): the bundle's whole text, and what it compiles of it, stay in memory.
import { execFile } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { KUBE_CLIENT_EXTERNALS, NODE_ESM_BUNDLE } from "./build-package-bundles.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
/** Modules every bundle shares (see above), by their path under dist/. */
const SHARED = new Set(["cli/cli-error.js"]);
/** The commands' modules bundled on their own, by their path under dist/: the bundle, under dist/. */
const ON_DEMAND = new Map([
  ["cli/check-config-action.js", "cli-check-config.js"],
  ["cli/db-copy-action.js", "cli-db-copy.js"],
  ["cli/db-backup-actions.js", "cli-db-backup.js"],
  ["cli/db-check-action.js", "cli-db-check.js"],
]);
/**
 * Packages left to node: native code (SQLite), etcd's client, which a command loads only for store: etcd, and the
 * dependencies of the bundled Kubernetes client (scripts/build-package-bundles.mjs), which load only with it.
 */
const EXTERNAL_PACKAGES = ["better-sqlite3", "etcd3", "@grpc/*", ...KUBE_CLIENT_EXTERNALS];
/** The identifiers the loader's wrapper gives a CommonJS bundle for import.meta (src/cli/bundle-loader.ts, built). */
const { DYNAMIC_IMPORT, IMPORT_META_OF, IMPORT_META_URL } = await import(pathToFileURL(join(dist, "cli", "bundle-loader.js")).href);

const underDist = (path) => relative(dist, path).split("\\").join("/");

/** esbuild's options for the bundle of `entry` (under dist/) into `outfile` (under dist/), an ES module. */
function bundleOf(entry, outfile) {
  return {
    // commander, yaml and node-cron are CommonJS: their require() of node's modules needs the banner's require.
    ...NODE_ESM_BUNDLE,
    entryPoints: [join(dist, entry)],
    outfile: join(dist, outfile),
    external: EXTERNAL_PACKAGES,
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

/**
 * The same for a bundle loaded on demand: a CommonJS body for src/cli/bundle-loader.ts, whose wrapper gives `require`,
 * the bundle's `import.meta.url` (node-cron reads it), each dist/ module's import.meta (IMPORT_META_OF) and the
 * function its import() calls of packages are turned into (see there). What it imports on demand from dist/ is in it,
 * run when it is imported (esbuild makes such a module's body a function the import() calls).
 */
function onDemandBundleOf(entry, outfile) {
  const { banner: _esmRequire, plugins: _front, ...options } = bundleOf(entry, outfile);
  return {
    ...options,
    outfile: join(dist, outfile.replace(/\.js$/, ".cjs")),
    format: "cjs",
    define: { "import.meta.url": IMPORT_META_URL },
    plugins: [
      {
        name: "on-demand-bundle",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            const bare = !args.path.startsWith(".") && !args.path.startsWith("/");
            if (bare) return args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined;
            const target = underDist(join(args.resolveDir, args.path));
            if (SHARED.has(target)) return { path: `./${target}`, external: true };
            if (args.kind === "dynamic-import" && ON_DEMAND.has(target)) return { path: `./${ON_DEMAND.get(target)}`, external: true };
            return undefined;
          });
          // A module of kintsugi's own keeps its import.meta: its file's URL, and resolve() from there.
          build.onLoad({ filter: /\.js$/ }, async (args) => {
            const file = underDist(args.path);
            if (file.startsWith("../")) return undefined;
            const text = await readFile(args.path, "utf8");
            return { contents: text.replaceAll(/\bimport\.meta\b/g, `${IMPORT_META_OF}(${JSON.stringify(file)})`), loader: "js" };
          });
        },
      },
    ],
    write: false,
    metafile: true,
  };
}

/** esbuild's options for the front (test/cli/cli-modules.test.ts builds with them too, to see what goes in). */
export const CLI_BUILD = bundleOf("cli/main.js", "kintsugi-cli.js");
/** The same for each bundle loaded on demand. */
export const ON_DEMAND_BUILDS = [...ON_DEMAND].map(([entry, outfile]) => onDemandBundleOf(entry, outfile));

/** The node options of bin/kintsugi.js's first line: V8 takes a code cache only under the flags it was made with. */
function executableNodeOptions() {
  const first = readFileSync(join(root, "bin", "kintsugi.js"), "utf8").split("\n", 1)[0] ?? "";
  const shebang = /^#!\/usr\/bin\/env(?: -S)? node((?: --[\w-]+(?:=\S+)?)*)$/.exec(first);
  if (!shebang) throw new Error(`bin/kintsugi.js: its first line is not a "#!/usr/bin/env -S node [options]" line: ${first}`);
  return (shebang[1] ?? "").split(" ").filter((o) => o !== "");
}

/**
 * Builds the on-demand bundle of `options` and writes it with its import() calls turned into calls of the wrapper's
 * import function; then its code cache, in a node run as the executable runs, and the ES module that loads it.
 */
async function buildOnDemand(options) {
  const result = await build(options);
  const [output] = result.outputFiles;
  const imports = Object.values(result.metafile.outputs)[0].imports.filter((i) => i.external);
  let text = output.text;
  for (const { path } of imports.filter((i) => i.kind === "dynamic-import")) {
    const call = `import(${JSON.stringify(path)})`;
    if (!text.includes(call)) throw new Error(`${underDist(options.outfile)}: no ${call} to turn into a call of the wrapper's import function`);
    text = text.split(call).join(`${DYNAMIC_IMPORT}(${JSON.stringify(path)})`);
  }
  writeFileSync(options.outfile, text);
  // The modules shared with the front, handed to the bundle as the front loaded them (relative specifiers are SHARED's).
  const shared = [...new Set(imports.filter((i) => i.kind !== "dynamic-import" && i.path.startsWith(".")).map((i) => i.path))];
  const cjs = options.outfile;
  const loader = pathToFileURL(join(dist, "cli", "bundle-loader.js")).href;
  const sharedMap = `Object.fromEntries(await Promise.all(${JSON.stringify(shared)}.map(async (p) => [p, await import(new URL(p, ${JSON.stringify(pathToFileURL(cjs).href)}).href)])))`;
  const script = `const { writeCodeCache } = await import(${JSON.stringify(loader)}); console.log(JSON.stringify(writeCodeCache(${JSON.stringify(cjs)}, ${sharedMap})));`;
  const { stdout } = await promisify(execFile)(process.execPath, [...executableNodeOptions(), "--input-type=module", "-e", script]);
  const names = JSON.parse(stdout.trim().split("\n").at(-1));
  const cjsName = underDist(cjs);
  writeFileSync(
    cjs.replace(/\.cjs$/, ".js"),
    [
      `// Made by scripts/build-cli.mjs: runs ${cjsName} with its code cache (src/cli/bundle-loader.ts).`,
      `import { fileURLToPath } from "node:url";`,
      `import { loadBundle } from "./cli/bundle-loader.js";`,
      ...shared.map((p, i) => `import * as shared${i} from ${JSON.stringify(p)};`),
      `const file = fileURLToPath(new URL(${JSON.stringify(`./${cjsName}`)}, import.meta.url));`,
      `export const { ${names.join(", ")} } = loadBundle(file, {${shared.map((p, i) => ` ${JSON.stringify(p)}: shared${i} `).join(",")}}).exports;`,
      "",
    ].join("\n"),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await Promise.all([build(CLI_BUILD), ...ON_DEMAND_BUILDS.map(buildOnDemand)]);
  const sizes = [CLI_BUILD, ...ON_DEMAND_BUILDS].map((o) => `${underDist(o.outfile)} ${Math.round(statSync(o.outfile).size / 1024)} KiB`);
  console.log(`cli: bundled in ${Date.now() - started} ms: ${sizes.join(", ")}`);
}
