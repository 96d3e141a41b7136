// Builds the browser IDE served at / (src/graphql/graphiql-routes.ts) into dist/graphiql/, from npm packages only:
// GraphiQL 5 (React 19, Monaco editor), @graphiql/toolkit's fetcher and graphql-ws's client, bundled by esbuild.
// Nothing is fetched at run time from anywhere but kintsugi itself: Monaco's web workers are bundled here too (the
// `graphiql/setup-workers/esm.sh` helper would load them from a CDN), and GraphiQL's stylesheet inlines its fonts.
//
// Outputs: graphiql.js (+ chunk-*.js, loaded on demand), style.css, and editor/json/graphql .worker.js.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist", "graphiql");
const require = createRequire(join(root, "package.json"));

// The page's code: scripts/graphiql-page/main.jsx (GraphiQL with kintsugi's token control and example query).
const entry = join(root, "scripts", "graphiql-page", "main.jsx");

const common = {
  bundle: true,
  minify: true,
  legalComments: "none",
  target: ["es2022"],
  platform: "browser",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
};

/** Monaco's modules import their CSS from JS; GraphiQL's style.css already carries all of it (fonts inlined). */
const ignoreCssImports = {
  name: "ignore-css-imports",
  setup(b) {
    b.onResolve({ filter: /\.css$/ }, (args) => ({ path: args.path, namespace: "ignored-css" }));
    b.onLoad({ filter: /.*/, namespace: "ignored-css" }, () => ({ contents: "", loader: "js" }));
  },
};

const started = Date.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await Promise.all([
  build({
    ...common,
    entryPoints: { graphiql: entry },
    outdir: out,
    jsx: "automatic",
    chunkNames: "chunk-[hash]",
    // The example query the page opens with is a .graphql file, imported as its text.
    loader: { ".graphql": "text" },
    format: "esm",
    splitting: true,
    plugins: [ignoreCssImports],
  }),
  build({
    ...common,
    entryPoints: {
      "editor.worker": require.resolve("monaco-editor/esm/vs/editor/editor.worker.js"),
      "json.worker": require.resolve("monaco-editor/esm/vs/language/json/json.worker.js"),
      "graphql.worker": require.resolve("monaco-graphql/esm/graphql.worker.js"),
    },
    outdir: out,
    format: "iife",
    plugins: [ignoreCssImports],
  }),
]);
copyFileSync(require.resolve("graphiql/style.css"), join(out, "style.css"));
console.log(`graphiql: built dist/graphiql in ${Date.now() - started} ms`);
