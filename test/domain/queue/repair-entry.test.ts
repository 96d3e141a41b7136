import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRepairEntry, isFinished, type RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { matchesRepairEntryParams } from "../../../src/domain/queue/repair-entry-params.js";
import { NOW } from "../../support/fixtures.js";

describe("createRepairEntry", () => {
  it("starts queued at step 0, waiting, not a node, with the transition time in whole seconds", () => {
    assert.deepEqual(createRepairEntry({ address: "10.0.0.1", machineType: "qemu", operation: "unreachable", serial: "s1", source: "sabakan" }, NOW), {
      address: "10.0.0.1",
      nodename: "",
      serial: "s1",
      machineType: "qemu",
      operation: "unreachable",
      status: "queued",
      step: 0,
      stepStatus: "waiting",
      deleted: false,
      lastTransitionTime: NOW - 250,
      drainBackoffCount: 0,
      drainBackoffExpire: null,
      createdAt: NOW,
      source: "sabakan",
    });
  });

  it("calls succeeded and failed finished, and only those", () => {
    assert.deepEqual(
      (["queued", "processing", "succeeded", "failed"] as const).map((status) => isFinished({ status })),
      [false, false, true, true],
    );
  });
});

describe("matchesRepairEntryParams", () => {
  const entry: RepairEntry = {
    ...createRepairEntry({ address: "10.0.0.1", machineType: "qemu", operation: "unreachable", serial: null, source: "operator" }, NOW),
    index: 1,
  };
  const cases: Array<[string, Parameters<typeof matchesRepairEntryParams>[1], Parameters<typeof matchesRepairEntryParams>[2], boolean]> = [
    ["nothing given", null, null, true],
    ["undefined lists", {}, {}, true],
    ["empty lists", { statuses: [] }, { operations: [] }, true],
    ["having matches one of several", { operations: ["reboot", "unreachable"] }, null, true],
    ["having misses", { operations: ["reboot"] }, null, false],
    ["every having field must match", { operations: ["unreachable"], machineTypes: ["dell"] }, null, false],
    ["notHaving matches", null, { statuses: ["queued"] }, false],
    ["notHaving misses", null, { statuses: ["failed"] }, true],
    ["one matching notHaving field is enough to exclude", null, { statuses: ["failed"], addresses: ["10.0.0.1"] }, false],
  ];
  for (const [name, having, notHaving, want] of cases) it(name, () => assert.equal(matchesRepairEntryParams(entry, having, notHaving), want));
});
