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

// The page's code. HTTP goes to this origin's /graphql, subscriptions to ws(s)://this host/graphql (graphql-ws), so
// the page works behind any host, port or TLS terminator. The workers are the files built next to this bundle.
const entry = `
import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { GraphiQL } from "graphiql";
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import { createClient } from "graphql-ws";

globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const name = label === "json" ? "json" : label === "graphql" ? "graphql" : "editor";
    return new Worker(new URL("./" + name + ".worker.js", import.meta.url), { name: label });
  },
};

const wsUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql";
const fetcher = createGraphiQLFetcher({
  url: location.origin + "/graphql",
  wsClient: createClient({ url: wsUrl, lazy: true, retryAttempts: 3 }),
});

// ?query=...&variables=... open that operation (links to the IDE can carry one), as GraphiQL's own examples do.
const params = new URLSearchParams(location.search);
createRoot(document.getElementById("graphiql")).render(
  createElement(GraphiQL, {
    fetcher,
    initialQuery: params.get("query") ?? undefined,
    initialVariables: params.get("variables") ?? undefined,
  }),
);
`;

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
    stdin: { contents: entry, resolveDir: root, sourcefile: "graphiql-page.js", loader: "js" },
    outdir: out,
    entryNames: "graphiql",
    chunkNames: "chunk-[hash]",
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
