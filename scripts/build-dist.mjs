// Compiles src/ into dist/ one file at a time, as tsc -p tsconfig.build.json would lay it out (dist/x.js and its
// source map for src/x.ts), with esbuild's transpiler. It does not check types: `npm run typecheck` does, once, over
// src/ with the tests and the scripts (compiling src/ with tsc here too checked it twice, about 20 s of CPU).
// Transpiling each file alone is what tsc emits: verbatimModuleSyntax makes every type-only import say so, and src/
// has no const enum, namespace or decorator (which need the whole program).
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const entries = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
  .map((e) => join(e.parentPath, e.name));

const started = Date.now();
await build({
  entryPoints: entries,
  outdir: join(root, "dist"),
  outbase: src,
  bundle: false,
  format: "esm",
  platform: "node",
  target: "es2023",
  sourcemap: true,
  tsconfig: join(root, "tsconfig.build.json"),
  logLevel: "warning",
});
console.log(`dist: compiled ${entries.length} files of src/ in ${Date.now() - started} ms`);
