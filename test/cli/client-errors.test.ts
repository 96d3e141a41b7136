import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { CliError, describeSocketError, KintsugiClient } from "../../src/cli/client.js";

const HOSTILE = "entry\x1b[2J\x1b]0;owned\x07 \u009b31m\u202egone";
const SHOWN = "entry\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m\\u202egone";

describe("the CLI prints what a server says with its control characters escaped", () => {
  let server: Server;
  let url: string;
  before(async () => {
    // A server answering every request with errors whose words carry terminal controls (as forwarded text may).
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ message: HOSTILE, extensions: { type: "NOT_FOUND\x1b[0m" } }, { message: "second\nline" }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("GraphQL errors over HTTP: one line per error, each escaped", async () => {
    await assert.rejects(new KintsugiClient(url).request("{ repairQueueEnabled }"), (err: unknown) => {
      assert.ok(err instanceof CliError);
      assert.equal(err.message, `${SHOWN} (NOT_FOUND\\x1b[0m)\nsecond\\x0aline`);
      return true;
    });
  });

  const socketErrors: Array<[string, unknown]> = [
    ["an error", new Error(HOSTILE)],
    ["GraphQL errors", [{ message: HOSTILE }]],
    ["a close event", { code: 4403, reason: HOSTILE }],
  ];
  for (const [name, err] of socketErrors) {
    it(`graphql-ws: ${name}`, () => assert.match(describeSocketError(err), new RegExp(`${SHOWN.replace(/[\\[\]]/g, "\\$&")}$`)));
  }
});
