import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { until, withBridge } from "../support/alert-bridge-world.js";

describe("kintsugi alerts: machine holds set, released and ended (the real binary, a real kintsugi, a local webhook)", () => {
  it("posts one message when a hold is set, one when it is released, and one when it ends by itself, escaping the reason", () =>
    withBridge({}, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      const scrape = async () => (await fetch(`${w.k.url}/metrics`)).text();
      await until("the bridge subscribed to hold events", async () => /kintsugi_subscriptions\{topic="machineHoldEvents"\} 1/.test(await scrape()), why);
      // Ends by itself a few seconds from now: long enough for the release below to come first.
      const ends = new Date(Date.now() + 4000).toISOString().replace(/\.\d{3}Z$/, "Z");
      await w.gql(`mutation($u: DateTime) { holdMachine(address: "10.0.0.1", reason: "vendor\\u001b[2J on site", until: $u) { address } }`, { u: ends });
      await w.gql(`mutation { holdMachine(address: "10.0.0.2", reason: "cabling") { address } }`);
      await w.gql(`mutation { releaseMachine(address: "10.0.0.2") { address } }`);
      await until("the hold's end", () => r.titles().includes("machine hold ended: 10.0.0.1"), why);

      const byTitle = new Map(r.messages.map((m) => [m.title, m]));
      const held = byTitle.get("machine held: 10.0.0.1 by anonymous");
      assert.deepEqual([held?.kind, held?.severity, held?.text, held?.fields["until"]], ["held", "warning", "vendor\\x1b[2J on site", ends]);
      assert.equal(byTitle.get("machine held: 10.0.0.2 by anonymous")?.fields["until"], "until released");
      const released = byTitle.get("machine released: 10.0.0.2 by anonymous");
      assert.deepEqual([released?.kind, released?.text, released?.fields["held by"]], ["cleared", "cabling", "anonymous"]);
      const ended = byTitle.get("machine hold ended: 10.0.0.1");
      assert.deepEqual([ended?.kind, ended?.severity, ended?.fields["ended"]], ["cleared", "info", ends]);
      assert.equal(r.messages.length, 4, why());
    }));
});
