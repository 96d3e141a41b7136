import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW, TEST_REPAIR_CONFIG } from "../support/fixtures.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";

const PACING = `{ repairPacing { enabled paceBy domains { domain value allowance inProgress lastChange { entryIndex status time } } } }`;

describe("repairPacing over HTTP", () => {
  it("says pacing is off without repair.pacing", async () => {
    const k = await startTestKintsugi({}, { now: () => NOW });
    try {
      assert.deepEqual((await k.gql(PACING)).data, { repairPacing: { enabled: false, paceBy: [], domains: [] } });
      assert.doesNotMatch(await (await fetch(`${k.url}/metrics`)).text(), /^kintsugi_repair_pacing_allowance\{/m);
    } finally {
      await k.dispose();
    }
  });

  it("lists each machine type of the queue at allowance 1 before any entry finished", async () => {
    const k = await startTestKintsugi({ repair: { ...TEST_REPAIR_CONFIG, pacing: { domains: ["machine_type", "rack"] } } }, { now: () => NOW });
    try {
      await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.1.0.1") { index } }`);
      await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "ipmi-2.0", address: "10.1.0.2") { index } }`);
      const got = await k.gql(PACING);
      assert.equal(got.errors, undefined);
      // No sabakan answer named a rack: the entries are paced by machine type only.
      assert.deepEqual(got.data, {
        repairPacing: {
          enabled: true,
          paceBy: ["MACHINE_TYPE", "RACK"],
          domains: [
            { domain: "MACHINE_TYPE", value: "ipmi-2.0", allowance: 1, inProgress: 0, lastChange: null },
            { domain: "MACHINE_TYPE", value: "qemu", allowance: 1, inProgress: 0, lastChange: null },
          ],
        },
      });
      const metrics = await (await fetch(`${k.url}/metrics`)).text();
      assert.match(metrics, /^kintsugi_repair_pacing_allowance\{domain="machine_type",value="qemu"\} 1$/m);
      assert.match(metrics, /^kintsugi_repair_pacing_allowance\{domain="machine_type",value="ipmi-2.0"\} 1$/m);
    } finally {
      await k.dispose();
    }
  });

  it("remembers an entry that failed, in the running server and after a restart", async () => {
    const config = { repair: { ...TEST_REPAIR_CONFIG, pacing: { domains: ["machine_type" as const] } } };
    // The test procedures' health check prints "true ADDRESS", which is not "true": the repair fails after its step.
    let k = await startTestKintsugi(config, { now: () => NOW, startRunner: true, startSchedule: false });
    try {
      const added = await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.1.0.1") { index } }`);
      const index = Number(added.data?.addRepairEntry.index);
      await until(
        "the entry fails",
        async () => (await k.gql(`{ repairEntry(index: ${index}) { status } }`)).data?.repairEntry.status,
        (s) => s === "FAILED",
      );
      const want = [
        {
          domain: "MACHINE_TYPE",
          value: "qemu",
          allowance: 1,
          inProgress: 0,
          lastChange: { entryIndex: index, status: "FAILED", time: "2026-11-22T05:00:00Z" },
        },
      ];
      assert.deepEqual((await k.gql(PACING)).data?.repairPacing.domains, want);
      k = await k.restart(config, { now: () => NOW, startRunner: true, startSchedule: false });
      assert.deepEqual((await k.gql(PACING)).data?.repairPacing.domains, want);
    } finally {
      await k.dispose();
    }
  });
});
