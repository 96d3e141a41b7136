import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateHoldRequest } from "../../../src/domain/holds/machine-holds.js";
import type { KintsugiStore, StoreCommit } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { loggingEtcdStores } from "../../support/logging-etcd-stores.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";

/** Machine hold values another process with write access to the prefix may put there: left out, logged, never a crash. */
describe("etcd machine hold values written by another process", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("hostile-holds");
  const { logged, open } = loggingEtcdStores(suite);
  const hold = (store: KintsugiStore, address: string) =>
    store.holds.hold((stored) => validateHoldRequest({ address, reason: "kept", setBy: "alice", until: null }, stored, NOW), "alice");
  const value = (hold: Record<string, unknown>) =>
    JSON.stringify({ v: 1, hold: { address: "10.0.0.2", reason: "r", setBy: "mallory", setAt: NOW, until: null, ...hold } });

  const hostile: Array<[string, string, string, RegExp]> = [
    ["not JSON", "10.0.0.2", "{", /does not hold JSON/],
    ["an option for an address", "-rf", value({ address: "-rf" }), /at hold\.address: must be an IP address in canonical form/],
    ["an address not in canonical form", "::ffff:10.0.0.2", value({ address: "::ffff:10.0.0.2" }), /at hold\.address: must be an IP address in canonical form/],
    ["control characters in the address", "10.0.0.2\x1b[2J", value({ address: "10.0.0.2\x1b[2J" }), /at hold\.address/],
    ["an empty reason", "10.0.0.2", value({ reason: "" }), /at hold\.reason/],
    ["a reason past the bound", "10.0.0.2", value({ reason: "r".repeat(513) }), /at hold\.reason/],
    ["an until that is not a number", "10.0.0.2", value({ until: "tomorrow" }), /at hold\.until/],
    ["a newer format", "10.0.0.2", JSON.stringify({ v: 99, hold: {} }), /format version 99, newer than this kintsugi knows/],
  ];
  for (const [name, address, text, error] of hostile) {
    it(`leaves out of the mirror, on open and from the watch, a hold holding ${name}, and goes on storing holds`, async () => {
      const prefix = suite.freshPrefix();
      const first = await open(prefix);
      const kept = await hold(first, "10.0.0.1");
      const key = `${prefix}holds/${address}`;
      await suite.client.put(key).value(text);
      await until("the running store's mirror passed the hostile put", () => logged.some((l) => l.fields["key"] === key));
      const second = await open(prefix);
      for (const store of [first, second]) assert.deepEqual(store.holds.list(), [kept]);
      const said = logged.filter((l) => l.level === "error" && l.fields["key"] === key);
      assert.ok(said.length >= 2, "logged by both stores");
      assert.match(String(said[0]?.fields["error"]), error);
      const more = await hold(second, "10.0.0.3");
      assert.deepEqual(second.holds.list(), [kept, more]);
    });
  }

  it("leaves out a hold stored under another address's key", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    await suite.client.put(`${prefix}holds/10.0.0.9`).value(value({ address: "10.0.0.2" }));
    const reopened = await open(prefix);
    assert.deepEqual([store.holds.list(), reopened.holds.list()], [[], []]);
    assert.ok(logged.some((l) => l.fields["key"] === `${prefix}holds/10.0.0.9` && /holds another address/.test(l.message)));
  });

  it("announces no hold change from a holds head it cannot read, and replaces that head at the next hold", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    const commits: StoreCommit[] = [];
    store.onCommit((c) => commits.push(c));
    await suite.client
      .put(`${prefix}holds-head`)
      .value(JSON.stringify({ v: 1, w: "x", changes: [{ kind: "set", hold: { address: "-rf" }, actor: "mallory" }] }));
    await until("the mirror passed the hostile head", () => logged.some((l) => l.fields["key"] === `${prefix}holds-head`));
    const held = await hold(store, "10.0.0.1");
    assert.deepEqual(commits, [{ entries: [], outcome: null, generation: null, settings: [], holds: [{ kind: "set", hold: held, actor: "alice" }] }]);
  });
});
