// The server side of bench/api, in a process of its own so that the load client does not share its event loop:
//   kintsugi  kintsugi itself (SQLite file, 100 repair entries added through the API), as `kintsugi serve` runs it;
//   bare      the anchor: a bare Apollo Server 5 with its default plugins, on node:http through
//             executeHTTPGraphQLRequest, serving the same two fields from an array of 100 plain objects.
// Arguments: the kind, then the number of entries. Prints `port N` once it listens. Run bench/api.ts, not this.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloServer, HeaderMap } from "@apollo/server";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";

const ENTRIES = Number(process.argv[3] ?? 100);

const BARE_SCHEMA = /* GraphQL */ `
  type RepairEntry {
    index: ID! address: String! nodename: String! serial: String machineType: String! operation: String!
    status: String! step: Int! stepStatus: String! deleted: Boolean! lastTransitionTime: String drainBackoffCount: Int!
  }
  type Query { repairQueueEnabled: Boolean! searchRepairEntries: [RepairEntry!]! }
`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function bare(): Promise<number> {
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    index: String(i + 1),
    address: `10.0.1.${i + 1}`,
    nodename: "",
    serial: null,
    machineType: "qemu",
    operation: "unreachable",
    status: "QUEUED",
    step: 0,
    stepStatus: "WAITING",
    deleted: false,
    lastTransitionTime: "2026-11-22T06:00:00Z",
    drainBackoffCount: 0,
  }));
  const apollo = new ApolloServer({ typeDefs: BARE_SCHEMA, resolvers: { Query: { repairQueueEnabled: () => true, searchRepairEntries: () => entries } } });
  await apollo.start();
  const server = createServer((req, res) => {
    void (async () => {
      const headers = new HeaderMap();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      const text = await readBody(req);
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method ?? "POST", headers, search: "", body: text === "" ? undefined : JSON.parse(text) },
        context: async () => ({}),
      });
      for (const [k, v] of response.headers) res.setHeader(k, v);
      res.statusCode = response.status ?? 200;
      res.end(response.body.kind === "complete" ? response.body.string : "");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function kintsugi(): Promise<number> {
  const k = await startTestKintsugi();
  for (let i = 0; i < ENTRIES; i++) {
    const r = await k.gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
      a: `10.0.1.${i + 1}`,
    });
    if (r.errors) throw new Error(r.errors[0]?.message);
  }
  return Number(new URL(k.url).port);
}

const port = process.argv[2] === "bare" ? await bare() : await kintsugi();
console.log(`port ${port}`);
