import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";

const CONSTRAINTS = `maximumRepairQueueEntries waitSecondsToRepairRebooting maximumUnhealthyMachinesPerRack controlPlaneCount minimumWorkers maximumWorkers waitSecondsToReplaceControlPlane`;
const VARIABLES = `having { labels { name value } racks roles states minDaysBeforeRetire } notHaving { labels { name value } racks roles states minDaysBeforeRetire }`;

const CONFIG = { constraints: { maximumRepairQueueEntries: 3 } };

describe("settings API over HTTP", () => {
  let k: TestKintsugi;

  before(async () => {
    k = await startTestKintsugi(CONFIG, { now: () => NOW });
  });
  after(() => k.dispose());

  it("enables and disables the repair queue and auto-repair, persistently", async () => {
    assert.deepEqual((await k.gql(`{ repairQueueEnabled autoRepairEnabled }`)).data, { repairQueueEnabled: true, autoRepairEnabled: true });
    assert.deepEqual((await k.gql(`mutation { setRepairQueueEnabled(enabled: false) }`)).data, { setRepairQueueEnabled: false });
    assert.deepEqual((await k.gql(`mutation { setAutoRepairEnabled(enabled: false) }`)).data, { setAutoRepairEnabled: false });
    k = await k.restart(CONFIG, { now: () => NOW });
    assert.deepEqual((await k.gql(`{ repairQueueEnabled autoRepairEnabled }`)).data, { repairQueueEnabled: false, autoRepairEnabled: false });
    await k.gql(`mutation { setRepairQueueEnabled(enabled: true) setAutoRepairEnabled(enabled: true) }`);
    assert.deepEqual((await k.gql(`{ repairQueueEnabled autoRepairEnabled }`)).data, { repairQueueEnabled: true, autoRepairEnabled: true });
  });

  it("shows CKE's default variables, replaces them whole, and rejects bad ones naming the field", async () => {
    assert.deepEqual((await k.gql(`{ autoRepairVariables { ${VARIABLES} } }`)).data?.autoRepairVariables, {
      having: { labels: null, racks: null, roles: null, states: ["UNHEALTHY", "UNREACHABLE"], minDaysBeforeRetire: null },
      notHaving: { labels: null, racks: null, roles: ["boot"], states: null, minDaysBeforeRetire: null },
    });
    const set = await k.gql(`mutation($h: MachineParams) { setAutoRepairVariables(having: $h) { ${VARIABLES} } }`, {
      h: { labels: [{ name: "datacenter", value: "tokyo1" }], racks: [1, 2], states: ["UNHEALTHY"], minDaysBeforeRetire: 30 },
    });
    const want = {
      having: { labels: [{ name: "datacenter", value: "tokyo1" }], racks: [1, 2], roles: null, states: ["UNHEALTHY"], minDaysBeforeRetire: 30 },
      notHaving: null,
    };
    assert.deepEqual(set.data?.setAutoRepairVariables, want);
    for (const [variables, pattern] of [
      [{ h: { racks: [-1] } }, /having\.racks\[0\]: must be >= 0/],
      [{ h: { labels: [{ name: "", value: "x" }] } }, /having\.labels\[0\]\.name: must not be empty/],
    ] as const) {
      const bad = await k.gql(`mutation($h: MachineParams) { setAutoRepairVariables(notHaving: $h) { having { racks } } }`, variables);
      assert.equal(bad.errors?.[0]?.extensions?.type, "INVALID_MACHINE_PARAMS");
      assert.match(bad.errors?.[0]?.message ?? "", new RegExp(`not${pattern.source.replace(/^having/, "Having")}`));
    }
    const unknownField = await k.gql(`mutation($h: MachineParams) { setAutoRepairVariables(having: $h) { having { racks } } }`, { h: { rack: [1] } });
    assert.match(unknownField.errors?.[0]?.message ?? "", /Field "rack" is not defined by type "MachineParams"/);
    const unknownState = await k.gql(`mutation($h: MachineParams) { setAutoRepairVariables(having: $h) { having { racks } } }`, { h: { states: ["BROKEN"] } });
    assert.match(unknownState.errors?.[0]?.message ?? "", /Value "BROKEN" does not exist in "MachineState" enum/);
    assert.deepEqual((await k.gql(`{ autoRepairVariables { ${VARIABLES} } }`)).data?.autoRepairVariables, want, "rejections changed nothing");
  });

  it("keeps the text variables were set from byte for byte, reads it as CKE does, and gives set fields a text too", async () => {
    const text = `{"notHaving": {"roles": ["boot"]},  "having": {"states": ["UNREACHABLE"], "serial": "ignored"}}`;
    const set = await k.gql(`mutation($t: String) { setAutoRepairVariables(text: $t) { having { states } notHaving { roles } text } }`, { t: text });
    assert.deepEqual(set.data?.setAutoRepairVariables, { having: { states: ["UNREACHABLE"] }, notHaving: { roles: ["boot"] }, text });
    assert.equal((await k.gql(`{ autoRepairVariables { text } }`)).data?.autoRepairVariables.text, text);
    for (const [variables, pattern] of [
      [{ t: "[1]" }, /^text: must be a JSON object/],
      [{ t: `{"having": {"states": ["BROKEN"]}}` }, /^having\.states\[0\]: unknown machine state "BROKEN"/],
      [{ t: "{}", h: { racks: [1] } }, /^give text, or having and notHaving, not both$/],
    ] as const) {
      const bad = await k.gql(`mutation($t: String, $h: MachineParams) { setAutoRepairVariables(text: $t, having: $h) { text } }`, variables);
      assert.equal(bad.errors?.[0]?.extensions?.type, "INVALID_MACHINE_PARAMS");
      assert.match(bad.errors?.[0]?.message ?? "", pattern);
    }
    assert.equal((await k.gql(`{ autoRepairVariables { text } }`)).data?.autoRepairVariables.text, text, "rejections changed nothing");
    const fields = await k.gql(`mutation { setAutoRepairVariables(having: { racks: [4] }) { text } }`);
    assert.equal(fields.data?.setAutoRepairVariables.text, `${JSON.stringify({ having: { racks: [4] } }, null, 4)}\n`);
  });

  it("shows constraints with the config file's initial values and sets them by CKE name", async () => {
    assert.deepEqual((await k.gql(`{ constraints { ${CONSTRAINTS} } }`)).data?.constraints, {
      maximumRepairQueueEntries: 3,
      waitSecondsToRepairRebooting: 0,
      maximumUnhealthyMachinesPerRack: 0,
      controlPlaneCount: 1,
      minimumWorkers: 1,
      maximumWorkers: 0,
      waitSecondsToReplaceControlPlane: 1800,
    });
    const set = await k.gql(`mutation { setConstraint(name: "wait-seconds-to-repair-rebooting", value: 600) { waitSecondsToRepairRebooting } }`);
    assert.deepEqual(set.data?.setConstraint, { waitSecondsToRepairRebooting: 600 });
    const grace = await k.gql(`mutation { setConstraint(name: "wait-seconds-to-replace-control-plane", value: 0) { waitSecondsToReplaceControlPlane } }`);
    assert.deepEqual(grace.data?.setConstraint, { waitSecondsToReplaceControlPlane: 0 });
    k = await k.restart({ constraints: { maximumRepairQueueEntries: 9, waitSecondsToReplaceControlPlane: 60 } }, { now: () => NOW });
    const c = (await k.gql(`{ constraints { maximumRepairQueueEntries waitSecondsToRepairRebooting waitSecondsToReplaceControlPlane } }`)).data?.constraints;
    assert.deepEqual(
      c,
      { maximumRepairQueueEntries: 9, waitSecondsToRepairRebooting: 600, waitSecondsToReplaceControlPlane: 0 },
      "the value set through the API wins over the config file's",
    );
    k = await k.restart(CONFIG, { now: () => NOW });
  });

  const invalid: Array<[string, string, number, RegExp]> = [
    [
      "an unknown name",
      "maximum-repair-queue",
      1,
      /unknown constraint "maximum-repair-queue"; known: control-plane-count, minimum-workers-rate, maximum-unreachable-nodes-for-reboot, maximum-repair-queue-entries/,
    ],
    ["a camelCase name", "maximumRepairQueueEntries", 1, /unknown constraint/],
    ["a negative value", "maximum-repair-queue-entries", -1, /maximum-repair-queue-entries must be an integer >= 0, got -1/],
    ["zero control planes", "control-plane-count", 0, /control-plane-count must be an integer >= 1, got 0: a cluster without a control plane cannot run/],
    ["a negative control-plane grace", "wait-seconds-to-replace-control-plane", -1, /wait-seconds-to-replace-control-plane must be an integer >= 0, got -1/],
    ["a value that is not an integer", "maximum-workers", 0.5, /Int cannot represent non-integer value/],
  ];
  for (const [name, constraint, value, pattern] of invalid) {
    it(`rejects ${name} and changes nothing`, async () => {
      const before = (await k.gql(`{ constraints { ${CONSTRAINTS} } }`)).data;
      const res = await k.gql(`mutation($n: String!, $v: Int!) { setConstraint(name: $n, value: $v) { maximumWorkers } }`, { n: constraint, v: value });
      assert.match(res.errors?.[0]?.message ?? "", pattern);
      assert.deepEqual((await k.gql(`{ constraints { ${CONSTRAINTS} } }`)).data, before);
    });
  }

  it("checks constraints together: maximum-workers below minimum-workers is refused", async () => {
    await k.gql(`mutation { setConstraint(name: "minimum-workers", value: 3) { minimumWorkers } }`);
    const res = await k.gql(`mutation { setConstraint(name: "maximum-workers", value: 2) { maximumWorkers } }`);
    assert.equal(res.errors?.[0]?.extensions?.type, "INVALID_CONSTRAINT");
    assert.match(res.errors?.[0]?.message ?? "", /maximum-workers \(2\) must be 0 \(unlimited\) or >= minimum-workers \(3\)/);
    const ok = await k.gql(`mutation { setConstraint(name: "maximum-workers", value: 3) { minimumWorkers maximumWorkers } }`);
    assert.deepEqual(ok.data?.setConstraint, { minimumWorkers: 3, maximumWorkers: 3 });
  });
});
