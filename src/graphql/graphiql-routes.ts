import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";

/** What an extra GET route of the HTTP server answers. */
export interface RouteAnswer {
  readonly contentType: string;
  readonly body: string | Buffer;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sent with every GraphiQL file: the page may load only its own files and talk only to its own origin (HTTP and
 * WebSocket), may not be framed (clickjacking), and no answer is sniffed into another type. Inline styles are
 * allowed: GraphiQL's editor sets them.
 */
export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
};

/**
 * The browser IDE's files, built from npm packages by `npm run build` (scripts/build-graphiql.mjs). The same path
 * from src/graphql (tsx) and dist/graphql (built) reaches them.
 */
const ASSETS = new URL("../../dist/graphiql/", import.meta.url);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".ttf": "font/ttf",
  ".woff2": "font/woff2",
};

/**
 * The page. Its only requests are for its own files (relative URLs) and for this origin's /graphql: HTTP for
 * queries and mutations, WebSocket (graphql-ws) for subscriptions. `data:,` as the icon keeps the browser from asking
 * for /favicon.ico.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kintsugi GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="graphiql/style.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
<script type="module" src="graphiql/graphiql.js"></script>
</head>
<body>
<div id="graphiql">Loading GraphiQL&hellip;</div>
<noscript>GraphiQL needs JavaScript. The API itself is at POST /graphql.</noscript>
</body>
</html>
`;

const NOT_BUILT = `GraphiQL's files are missing from dist/graphiql/: run "npm run build". The API is at POST /graphql.\n`;

/** Where the page is served: kintsugi's own path, and sabakan's (its GraphQL playground), so either URL works. */
export const GRAPHIQL_PAGE_PATHS = ["/", "/playground"] as const;

/**
 * GET routes for the GraphiQL IDE: `/` and `/playground` are the page (its relative URLs resolve to the same files
 * from both), `/graphiql/<file>` its scripts, workers and stylesheet. Each file is read at its first request and
 * then answered from memory. When the files were never built, the page's paths say so (503).
 */
export function graphiqlRoutes(): Record<string, () => Promise<RouteAnswer>> {
  let files: string[];
  try {
    files = readdirSync(ASSETS).filter((name) => extname(name) in CONTENT_TYPES);
  } catch {
    files = [];
  }
  const routes: Record<string, () => Promise<RouteAnswer>> = {};
  if (!files.includes("graphiql.js")) {
    for (const path of GRAPHIQL_PAGE_PATHS)
      routes[path] = async () => ({ contentType: "text/plain; charset=utf-8", body: NOT_BUILT, status: 503, headers: GRAPHIQL_HEADERS });
    return routes;
  }
  const page = Buffer.from(PAGE);
  for (const path of GRAPHIQL_PAGE_PATHS) routes[path] = async () => ({ contentType: "text/html; charset=utf-8", body: page, headers: GRAPHIQL_HEADERS });
  for (const name of files) {
    const contentType = CONTENT_TYPES[extname(name)] ?? "application/octet-stream";
    let body: Promise<Buffer> | null = null;
    routes[`/graphiql/${name}`] = async () => {
      body ??= readFile(new URL(name, ASSETS)).catch((err: unknown) => {
        body = null;
        throw err;
      });
      return { contentType, body: await body, headers: GRAPHIQL_HEADERS };
    };
  }
  return routes;
}
