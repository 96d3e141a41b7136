// Builds the live status page served at /status (src/graphql/status-routes.ts) into dist/status/: its TypeScript
// (scripts/status-page/, plain DOM and canvas, with graphql-ws's client) bundled by esbuild, and its stylesheet.
// Nothing is fetched at run time from anywhere but kintsugi itself.
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "scripts", "status-page");
const out = join(root, "dist", "status");

const started = Date.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { status: join(source, "main.ts") },
  outdir: out,
  bundle: true,
  minify: true,
  legalComments: "none",
  target: ["es2022"],
  platform: "browser",
  format: "esm",
  logLevel: "warning",
});
copyFileSync(join(source, "style.css"), join(out, "status.css"));
const bytes = statSync(join(out, "status.js")).size;
console.log(`status page: built dist/status in ${Date.now() - started} ms (status.js ${Math.round(bytes / 1024)} KiB)`);
