import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, it } from "node:test";
import { MAX_CLUSTER_JSON_BYTES, UndecodableValueError } from "../../../src/store/core/store-values.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { loggingEtcdStores } from "../../support/logging-etcd-stores.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";
import { DEFAULT_CONSTRAINTS } from "../../../src/domain/shared/constraints.js";
import { DEFAULT_AUTO_REPAIR_VARIABLES } from "../../../src/domain/sabakan/machine-params.js";
import { ACTOR, cluster, newEntry } from "../conformance/store-harness.js";

/** Values another process with write access to the prefix may put there: kintsugi must neither act on them nor fall over. */
describe("etcd values written by another process", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("hostile");
  const { logged, open } = loggingEtcdStores(suite);
  const readJson = async (key: string) =>
    JSON.parse((await suite.client.get(key).string()) ?? "null") as { v: number; entry: Record<string, unknown>; record: Record<string, unknown> };

  const addresses: Array<[string, string]> = [
    ["an option a repair command would take", "-rf"],
    ["an option with a value", "--output=/etc/passwd"],
    ["control characters", "10.0.0.2\x1b[2J"],
    ["a host name", "evil.example"],
    ["a padded address", " 10.0.0.2"],
    ["nothing", ""],
  ];
  for (const [name, address] of addresses) {
    it(`leaves out of the mirror, on open and from the watch, an entry whose address is ${name}: no command ever gets it`, async () => {
      const prefix = suite.freshPrefix();
      const first = await open(prefix);
      await first.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
      const stored = await readJson(`${prefix}entries/0000000000000001`);
      const hostile = JSON.stringify({ ...stored, entry: { ...stored.entry, index: 2, address } });
      await suite.client.put(`${prefix}entries/0000000000000002`).value(hostile);
      // The watch of the running store meets it, then a new store reads it on open.
      await until("the running store's mirror passed the hostile put", async () => logged.some((l) => l.fields["key"] === `${prefix}entries/0000000000000002`));
      const second = await open(prefix);
      for (const store of [first, second]) {
        assert.deepEqual(
          store.entries.list().map((e) => [e.index, e.address]),
          [[1, "10.0.0.1"]],
        );
        assert.equal(store.entries.get(2), null);
      }
      const said = logged.filter((l) => l.level === "error" && l.fields["key"] === `${prefix}entries/0000000000000002`);
      assert.ok(said.length >= 2, "logged by both stores");
      assert.match(String(said[0]?.fields["error"]), /at entry\.address: must be an IP address/);
    });
  }

  it("leaves out of an entry's history a record that cannot be read, logs it, and serves the others", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    const added = await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
    await store.entries.requestDelete(() => true, "delete", NOW, ACTOR);
    const key = `${prefix}history/0000000000000001/0000000000000099`;
    await suite.client.put(key).value("{ not json");
    const history = await store.entries.history(added.entry.index);
    assert.deepEqual(
      history.map((r) => r.kind),
      ["created", "delete-requested"],
    );
    const said = logged.find((l) => l.level === "error" && l.fields["key"] === key);
    assert.match(String(said?.fields["error"]), /does not hold JSON/);
  });

  const finishedRecords: Array<[string, (stored: Record<string, unknown>) => unknown, RegExp]> = [
    ["a status that is not an ending", (f) => ({ ...f, status: "processing" }), /at finished\.status/],
    ["a finish time that is text", (f) => ({ ...f, finishedAt: "yesterday" }), /at finished\.finishedAt/],
    ["another sequence than its key", (f) => ({ ...f, sequence: 77 }), /./],
    ["an address that is an option", (f) => ({ ...f, address: "-rf" }), /at finished\.address: must be an IP address/],
  ];
  for (const [name, hostile, error] of finishedRecords) {
    it(`leaves out of the mirror a finished-repair record with ${name}, logs it, and keeps the others`, async () => {
      const prefix = suite.freshPrefix();
      const first = await open(prefix);
      await first.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
      await first.entries.dequeue(1, () => "deleted", NOW, ACTOR);
      const [kept] = first.finished.list();
      const stored = JSON.parse((await suite.client.get(`${prefix}finished/${String(kept?.sequence).padStart(16, "0")}`).string()) ?? "null") as {
        finished: Record<string, unknown>;
      };
      const key = `${prefix}finished/0000000000000050`;
      await suite.client.put(key).value(JSON.stringify({ v: 1, finished: hostile({ ...stored.finished, sequence: 50, entryIndex: 9 }) }));
      await until("the running store's mirror passed the hostile put", async () => logged.some((l) => l.fields["key"] === key));
      const second = await open(prefix);
      for (const store of [first, second]) assert.deepEqual(store.finished.list(), [kept]);
      const said = logged.filter((l) => l.level === "error" && l.fields["key"] === key);
      assert.ok(said.length >= 2, "logged by both stores");
      assert.match(String(said[0]?.fields["error"] ?? said[0]?.message), error);
    });
  }

  it("still reads the IPv4-mapped spelling older kintsugis stored", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
    const stored = await readJson(`${prefix}entries/0000000000000001`);
    await suite.client
      .put(`${prefix}entries/0000000000000002`)
      .value(JSON.stringify({ ...stored, entry: { ...stored.entry, index: 2, address: "::ffff:a00:2" } }));
    assert.deepEqual(
      (await open(prefix)).entries.list().map((e) => e.address),
      ["10.0.0.1", "::ffff:a00:2"],
    );
  });

  const settings: Array<[string, string, unknown, (s: KintsugiStore) => unknown, unknown]> = [
    ["a switch written as a string (truthy, whatever it says)", "repair-queue-enabled", "false", (s) => s.settings.repairQueueEnabled(), true],
    ["a constraint written as a string", "constraints", { maximumRepairQueueEntries: "1000" }, (s) => s.settings.constraints(), DEFAULT_CONSTRAINTS],
    ["a negative constraint", "constraints", { maximumUnhealthyMachinesPerRack: -1 }, (s) => s.settings.constraints(), DEFAULT_CONSTRAINTS],
    ["zero control planes", "constraints", { controlPlaneCount: 0 }, (s) => s.settings.constraints(), DEFAULT_CONSTRAINTS],
    [
      "auto-repair variables with a state sabakan does not have",
      "auto-repair-variables",
      { having: { states: ["BROKEN"] }, notHaving: null },
      (s) => s.settings.autoRepairVariables(),
      DEFAULT_AUTO_REPAIR_VARIABLES,
    ],
    [
      "auto-repair variables with a negative rack",
      "auto-repair-variables",
      { having: { racks: [-1] }, notHaving: null },
      (s) => s.settings.autoRepairVariables(),
      DEFAULT_AUTO_REPAIR_VARIABLES,
    ],
    ["a cluster template without its text", "cluster-template", { text: 42, setAt: NOW }, (s) => s.settings.clusterTemplate(), null],
    ["a health check paused by a number", "health-check-paused:workers", 1, (s) => s.settings.healthCheckPaused("workers"), null],
    [
      "published waits of an unknown kind",
      "repair-waits",
      [{ index: 1, kind: "ASLEEP", message: "zzz", until: null, domain: null }],
      (s) => s.settings.repairWaits(),
      [],
    ],
    [
      "a published wait with a huge message",
      "repair-waits",
      [{ index: 1, kind: "HOLD", message: "x".repeat(100_000), until: null, domain: null }],
      (s) => s.settings.repairWaits(),
      [],
    ],
    ["published waits that are not a list", "repair-waits", { 1: "held" }, (s) => s.settings.repairWaits(), []],
  ];
  for (const [name, setting, value, read, fallback] of settings) {
    it(`reads the default for ${name}, and says which key`, async () => {
      const prefix = suite.freshPrefix();
      await open(prefix);
      await suite.client.put(`${prefix}settings/${setting}`).value(JSON.stringify({ v: 1, w: "another-process", value }));
      const store = await open(prefix);
      assert.deepEqual(read(store), fallback);
      assert.ok(
        logged.some((l) => l.level === "error" && l.fields["key"] === `${prefix}settings/${setting}`),
        "logged",
      );
    });
  }

  it("reads settings of the right shape as they are", async () => {
    const prefix = suite.freshPrefix();
    await open(prefix);
    const put = (setting: string, value: unknown) =>
      suite.client.put(`${prefix}settings/${setting}`).value(JSON.stringify({ v: 1, w: "another-process", value }));
    await put("repair-queue-enabled", false);
    await put("constraints", { maximumRepairQueueEntries: 7, minimumWorkersRate: -5, maximumUnreachableNodesForReboot: -1 });
    await put("auto-repair-variables", { having: { states: ["UNREACHABLE"], racks: [2] }, notHaving: null });
    await put("health-check-paused:workers", true);
    const store = await open(prefix);
    assert.equal(store.settings.repairQueueEnabled(), false);
    assert.equal(store.settings.constraints().maximumRepairQueueEntries, 7);
    // CKE takes any integer for these two, so a negative one is a value, not damage.
    assert.equal(store.settings.constraints().minimumWorkersRate, -5);
    assert.equal(store.settings.constraints().maximumUnreachableNodesForReboot, -1);
    assert.deepEqual(store.settings.autoRepairVariables(), { having: { states: ["UNREACHABLE"], racks: [2] }, notHaving: null });
    assert.equal(store.settings.healthCheckPaused("workers"), true);
  });

  const configurations: Array<[string, () => string, RegExp]> = [
    [
      "a gzip bomb",
      () => gzipSync(Buffer.alloc(MAX_CLUSTER_JSON_BYTES + 1, " ")).toString("base64"),
      /^the configuration of generation record 1 cannot be decompressed: it decompresses to more than 67108864 bytes$/,
    ],
    ["base64 that is not gzip", () => Buffer.from("not gzip at all").toString("base64"), /^the configuration of generation record 1 cannot be decompressed: /],
    ["gzip that is not JSON", () => gzipSync("{nodes:").toString("base64"), /^the configuration of generation record 1 is not JSON/],
    [
      "JSON that is not a cluster",
      () => gzipSync('{"nodes":"all of them"}').toString("base64"),
      /^the configuration of generation record 1 is not a cluster configuration/,
    ],
  ];
  for (const [name, blob, message] of configurations) {
    it(`a generated configuration that is ${name} fails where it is read, with a clear error, and bounds memory`, async () => {
      const prefix = suite.freshPrefix();
      const store = await open(prefix);
      await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
      const key = `${prefix}generations/0000000000000001`;
      const stored = await readJson(key);
      await suite.client.put(key).value(JSON.stringify({ ...stored, record: { ...stored.record, cluster: blob() } }));
      const reopened = await open(prefix);
      const current = reopened.generations.current();
      assert.equal(current?.sequence, 1, "the record itself stays listed");
      const read = (what: () => unknown) => assert.throws(what, (err: unknown) => err instanceof UndecodableValueError && message.test(err.message));
      read(() => current?.cluster);
      read(() => reopened.generations.controlPlaneAddresses());
    });
  }
});
