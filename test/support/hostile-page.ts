import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The mutation every attempt tries: it would stop the repair queue. */
export const HOSTILE_MUTATION = "mutation { setRepairQueueEnabled(enabled: false) }";

/** What the page's script reports for each attempt, by name (see HOSTILE_SCRIPT). */
export type AttemptResults = Record<string, string>;

/**
 * The attacker's script: every way a page can send kintsugi a mutation without its help. It writes what each attempt
 * could see into <pre id="results"> as JSON and sets the title to "done". `failed: TypeError` is a fetch the browser
 * refused to complete for the page (CORS); `opaque` is a no-cors request whose answer the page may not read;
 * `answered N: ...` or `mutation answered: ...` would be a reply the page could read.
 */
const HOSTILE_SCRIPT = `
const target = new URL(location.href).searchParams.get("target");
const body = JSON.stringify({ query: ${JSON.stringify(HOSTILE_MUTATION)} });
const results = {};
async function attempt(name, run) {
  try {
    results[name] = await run();
  } catch (err) {
    results[name] = "failed: " + err.name;
  }
}
async function readable(answer) {
  return answer.type === "opaque" ? "opaque" : "answered " + answer.status + ": " + (await answer.text());
}
function webSocketAttempt() {
  return new Promise((resolve) => {
    const events = [];
    const ws = new WebSocket(target.replace(/^http/, "ws") + "/graphql", "graphql-transport-ws");
    ws.onopen = () => {
      events.push("open");
      ws.send(JSON.stringify({ type: "connection_init", payload: {} }));
    };
    ws.onmessage = (message) => {
      const data = JSON.parse(message.data);
      events.push(data.type);
      if (data.type === "connection_ack") ws.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: ${JSON.stringify(HOSTILE_MUTATION)} } }));
      if (data.type === "next") events.push("mutation answered: " + JSON.stringify(data.payload));
      if (data.type === "complete" || data.type === "error") ws.close();
    };
    ws.onerror = () => events.push("error");
    ws.onclose = (event) => {
      events.push("closed " + event.code);
      resolve(events.join(", "));
    };
  });
}
(async () => {
  await attempt("fetch application/json", async () => readable(await fetch(target + "/graphql", { method: "POST", headers: { "content-type": "application/json" }, body })));
  await attempt("fetch without content-type", async () => readable(await fetch(target + "/graphql", { method: "POST", body })));
  await attempt("fetch text/plain", async () => readable(await fetch(target + "/graphql", { method: "POST", headers: { "content-type": "text/plain" }, body })));
  await attempt("fetch no-cors text/plain", async () => readable(await fetch(target + "/graphql", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body })));
  await attempt("websocket", webSocketAttempt);
  document.getElementById("results").textContent = JSON.stringify(results);
  document.title = "done";
})();
`;

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>running</title><link rel="icon" href="data:,"></head>
<body><pre id="results"></pre><script>${HOSTILE_SCRIPT}</script></body></html>
`;

/** A web page on another origin (its own port on 127.0.0.1) whose script attacks the kintsugi named in ?target=. */
export interface HostilePage {
  readonly origin: string;
  /** The page's address, aimed at this kintsugi (its origin, e.g. http://127.0.0.1:PORT). */
  urlAgainst(kintsugiOrigin: string): string;
  close(): Promise<void>;
}

export async function startHostilePage(): Promise<HostilePage> {
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && (req.url ?? "").startsWith("/?")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urlAgainst: (kintsugiOrigin) => `${origin}/?target=${encodeURIComponent(kintsugiOrigin)}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
