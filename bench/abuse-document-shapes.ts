// bench/abuse's document shapes: what a viewer sends that passed every limit once and held the event loop or the
// memory (one field repeated without aliases, over HTTP and as a subscription over WebSocket, variables nested too deep
// to serialise), the first request after a start (sized by a fleet the server had not counted yet) and GraphiQL's
// full introspection.
import { getIntrospectionQuery } from "graphql";
import type WebSocket from "ws";
import { aliased, atOnce, postAnswer, postRaw, type Shape } from "./abuse-shapes.js";
import { acknowledgedSocket } from "./abuse-subscriptions.js";

/** CKE's selection of a machine (cybozu-go/cke sabakan/query.go), which the first request after a start asks 30 times. */
const CKE_MACHINE = "spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType } } status { state duration }";

/** `{ constraints { __typename } }` written `n` times, no alias; `variant` changes the text (a comment), not the document. */
const repeated = (n: number, variant: number) => `{ ${"constraints { __typename } ".repeat(n)} } #${variant}`;

let variants = 0;

function repeatedFields(): Shape {
  return {
    name: "{ constraints { __typename } } x1,240 without aliases (each text new)",
    run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, repeated(1_240, variants++))),
  };
}

/** The same document as subscriptions over one graphql-ws connection per client, each subscribe a new text. */
function repeatedFieldsOverWebSocket(): Shape {
  return {
    name: "the same x1,240, subscribed over WebSocket",
    run: (ctx, clients) =>
      atOnce(clients, async () => {
        const ws = await acknowledgedSocket(ctx.url, ctx.viewer);
        if (!ws) return "connection refused";
        try {
          return await subscribeAnswer(ws, `subscription ${repeated(1_240, variants++)}`);
        } finally {
          ws.terminate();
        }
      }),
  };
}

function deepVariables(): Shape {
  // Arrays 400,000 deep: 800 KB, within max_body_bytes; JSON.stringify cannot write them, so the text is written here.
  const body = `{"query":"query ($v: [String]) { repairQueueEnabled }","variables":{"v":${"[".repeat(400_000)}${"]".repeat(400_000)}}}`;
  return { name: "variables nested 400,000 deep", run: (ctx, clients) => atOnce(clients, () => postRaw(ctx.url, ctx.viewer, body)) };
}

function firstRequest(): Shape {
  return {
    name: "the first request after a start: 30 aliased searchMachines of CKE's selection",
    once: true,
    cold: true,
    run: (ctx) => postAnswer(ctx.url, ctx.viewer, `{ ${aliased(30, `searchMachines { ${CKE_MACHINE} }`)} }`),
  };
}

function introspection(): Shape {
  const query = getIntrospectionQuery({
    descriptions: true,
    inputValueDeprecation: true,
    schemaDescription: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
  });
  return { name: "GraphiQL's full introspection", run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query)) };
}

/** Subscribes once and tells the first answer: refused with the limit it names, an error, or an event. */
function subscribeAnswer(ws: WebSocket, query: string): Promise<string> {
  return new Promise((resolve) => {
    ws.once("close", (code) => resolve(`socket closed ${code}`));
    ws.once("message", (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: Array<{ message?: string; extensions?: { limit?: string } }> };
      const error = message.payload?.[0];
      if (message.type !== "error") resolve(message.type);
      else resolve(error?.extensions?.limit ? `refused: ${error.extensions.limit}` : `error: ${error?.message?.slice(0, 90)}`);
    });
    ws.send(JSON.stringify({ type: "subscribe", id: "1", payload: { query } }));
  });
}

/** The document shapes, in the order the bench runs them. */
export const DOCUMENT_SHAPES: readonly Shape[] = [repeatedFields(), repeatedFieldsOverWebSocket(), deepVariables(), firstRequest(), introspection()];
