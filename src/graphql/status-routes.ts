import { readFile } from "node:fs/promises";
import type { RouteAnswer } from "./graphiql-routes.js";

/**
 * Sent with every file of the status page: it may load only its own script and stylesheet (no inline script or
 * style element; the page sets colours and positions through the DOM), talk only to its own origin (HTTP and
 * WebSocket), may not be framed, and no answer is sniffed into another type.
 */
export const STATUS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** The page's files, built by `npm run build` (scripts/build-status-page.mjs); the same path from src and dist. */
const ASSETS = new URL("../../dist/status/", import.meta.url);

/** Where the page is served. */
export const STATUS_PAGE_PATH = "/status";

/**
 * The page: its script and stylesheet by relative URL (`status/...`, so a proxy may mount kintsugi under a prefix),
 * its data from this origin's /graphql with the token GraphiQL stores. `data:,` as the icon keeps the browser from
 * asking for /favicon.ico.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kintsugi status</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="status/status.css">
<script type="module" src="status/status.js"></script>
</head>
<body>
<header><h1>kintsugi</h1><span id="connection">loading&hellip;</span><span id="connection-note"></span><span id="racks-summary"></span><a href="./">GraphiQL</a></header>
<div id="outage" role="alert" hidden></div>
<section id="now"></section>
<ul id="legend"></ul>
<div id="racks-box"><p id="racks-error" class="panel-error" hidden></p><span id="racks-tooltip" hidden></span><canvas id="racks"></canvas></div>
<div class="columns">
<div><section id="queue"></section><section id="timeline"></section></div>
<div><section id="holds"></section><section id="outcomes"></section></div>
</div>
<noscript>The status page needs JavaScript. The API itself is at POST /graphql.</noscript>
</body>
</html>
`;

const NOT_BUILT = `The status page's files are missing from dist/status/: run "npm run build". The API is at POST /graphql.\n`;

const FILES: ReadonlyArray<readonly [name: string, contentType: string]> = [
  ["status.js", "text/javascript; charset=utf-8"],
  ["status.css", "text/css; charset=utf-8"],
];

/**
 * GET routes for the status page: `/status` the page, `/status/status.js` and `/status/status.css` its files, each
 * read at its first request and then answered from memory. Like GraphiQL the page itself holds no data: what it
 * shows comes from /graphql, which asks for the viewer role. When the files were never built, the page says so (503).
 */
export function statusPageRoutes(): Record<string, () => Promise<RouteAnswer>> {
  const routes: Record<string, () => Promise<RouteAnswer>> = {};
  const loaded = new Map<string, Promise<Buffer>>();
  const load = (name: string): Promise<Buffer> => {
    let body = loaded.get(name);
    if (!body) {
      body = readFile(new URL(name, ASSETS));
      body.catch(() => loaded.delete(name));
      loaded.set(name, body);
    }
    return body;
  };
  routes[STATUS_PAGE_PATH] = async () => {
    try {
      await load("status.js");
    } catch {
      return { contentType: "text/plain; charset=utf-8", body: NOT_BUILT, status: 503, headers: STATUS_PAGE_HEADERS };
    }
    return { contentType: "text/html; charset=utf-8", body: PAGE, headers: STATUS_PAGE_HEADERS };
  };
  for (const [name, contentType] of FILES) {
    routes[`${STATUS_PAGE_PATH}/${name}`] = async () => {
      try {
        return { contentType, body: await load(name), headers: STATUS_PAGE_HEADERS };
      } catch {
        return { contentType: "text/plain; charset=utf-8", body: NOT_BUILT, status: 404, headers: STATUS_PAGE_HEADERS };
      }
    };
  }
  return routes;
}
