// Transpiles the TypeScript the tests run (src/, test/, scripts/, bench/) into .test-build/, file by file with
// esbuild, so that each test file's process runs plain JavaScript: through tsx, every process (352 files and the
// children they start) spent about 0.5 s of CPU loading tsx and transforming its modules. Type checking stays with
// `npm run typecheck`. scripts/run-tests.mjs runs this first; `node scripts/build-tests.mjs` does it alone.
//
// .test-build/x.js is src/x.ts's, test/x.ts's, ...; every other file of those folders (.mjs, .json, fixtures) is a
// symlink to the original, so an import of a script or a JSON file finds it where it would. Each file keeps its
// source's `import.meta.url`, `import.meta.dirname` and `import.meta.filename` (esbuild replaces them with the .ts
// file's), so a path a module builds from its own location (a fixture, docs/, the built binary) is the same path it
// is under tsx; an inline source map gives the .ts lines (scripts/stack-positions.mjs maps failed tests' stacks).
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { transform } from "esbuild";
import { PACKAGE_BUNDLES } from "./build-package-bundles.mjs";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Where the transpiled tree goes (git-ignored). */
export const TEST_BUILD = join(ROOT, ".test-build");
const FOLDERS = ["src", "test", "scripts", "bench"];

const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));

/** `.test-build/<path>.js` for a .ts file of the checkout (a path from the working directory or an absolute one). */
export const builtPath = (path) => join(TEST_BUILD, relative(ROOT, resolve(path))).replace(/\.ts$/, ".js");

async function transpile(source, out) {
  const code = readFileSync(source, "utf8");
  const result = await transform(code, {
    loader: "ts",
    format: "esm",
    platform: "node",
    target: "es2023",
    sourcemap: "inline",
    sourcefile: relative(dirname(out), source),
    tsconfigRaw: { compilerOptions },
    define: {
      "import.meta.url": JSON.stringify(pathToFileURL(source).href),
      "import.meta.dirname": JSON.stringify(dirname(source)),
      "import.meta.filename": JSON.stringify(source),
    },
    logLevel: "warning",
  });
  writeFileSync(out, result.code);
}

/** Rebuilds .test-build/ from scratch; resolves to the number of files transpiled. */
export async function buildTests() {
  rmSync(TEST_BUILD, { recursive: true, force: true });
  const jobs = [];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const source = join(entry.parentPath, entry.name);
      const out = join(TEST_BUILD, relative(ROOT, source));
      mkdirSync(dirname(out), { recursive: true });
      if (entry.name.endsWith(".d.ts")) continue;
      if (entry.name.endsWith(".ts")) jobs.push(transpile(source, out.replace(/\.ts$/, ".js")));
      else symlinkSync(relative(dirname(out), source), out);
    }
  }
  await Promise.all(jobs);
  // When dist/ is built from this checkout (as `npm test`'s checks leave it), the tests load the packages kintsugi
  // bundles as kintsugi does, from dist's bundles (scripts/build-package-bundles.mjs): the whole Kubernetes library
  // cost each of the hundred-odd test processes that load the Kubernetes adapters about 0.4 s of CPU more, and Apollo
  // Server's, zod's, yaml's, prom-client's and ws's modules one by one about 0.3 s more. Otherwise they load the
  // packages (the re-exports of src/adapters/kube-client.ts, src/adapters/ws.ts, src/graphql/apollo-server.ts,
  // src/graphql/prom-client.ts, src/support/zod.ts and src/domain/shared/yaml.ts, transpiled).
  if (spawnSync(process.execPath, [join(ROOT, "scripts", "build-stamp.mjs"), "fresh"]).status === 0) {
    for (const { module } of PACKAGE_BUNDLES) {
      const transpiled = join(TEST_BUILD, "src", `${module}.js`);
      rmSync(transpiled);
      symlinkSync(relative(dirname(transpiled), join(ROOT, "dist", `${module}.js`)), transpiled);
    }
  }
  return jobs.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const count = await buildTests();
  console.log(`.test-build: transpiled ${count} files in ${Date.now() - started} ms`);
}
