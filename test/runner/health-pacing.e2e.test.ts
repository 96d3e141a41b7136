import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { HEALTH_BOUND_MS } from "../support/quick-health.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// An operator's add storm against the real serve wiring (its runner, real health-check processes): every add wakes
// the runner, and each entry's health check still runs once per interval, not once per pass.
const STORM = 100;
const address = (i: number) => `10.9.${Math.floor(i / 200)}.${(i % 200) + 1}`;

describe("health checks paced, not multiplied, by an add storm (kintsugi serve, real health-check processes)", () => {
  const dir = tempDir();
  const machines = new SimulatedMachines(dir.path);
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi(
      {
        repair: {
          ...EMPTY_REPAIR_CONFIG,
          repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(machines, [stepOf(machines, "noop")])] }],
        },
        // No timed pass within the test: every pass is one an add woke.
        runner: { intervalSeconds: 600, healthCheckConcurrency: 4 },
      },
      { startRunner: true, startSchedule: false },
    );
    // Nothing moves while the queue is disabled; its health checks go on (CKE's rule).
    assert.equal((await k.gql(`mutation { setRepairQueueEnabled(enabled: false) }`)).errors, undefined);
  });
  after(async () => {
    await k.dispose();
    dir.remove();
  });

  const add = (i: number) => k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`, { a: address(i) });
  const checks = () => machines.log().filter((line) => line.startsWith("health "));

  it(`runs each of ${STORM} entries added at once through its health check once, and answers /health throughout`, async () => {
    const probes: Array<{ readonly status: number; readonly ms: number }> = [];
    let storming = true;
    const probing = (async () => {
      while (storming) {
        const began = performance.now();
        const res = await fetch(`${k.url}/health`);
        await res.arrayBuffer();
        probes.push({ status: res.status, ms: performance.now() - began });
      }
    })();
    const added = await Promise.all(Array.from({ length: STORM }, (_, i) => add(i)));
    assert.deepEqual(
      added.filter((a) => a.errors !== undefined),
      [],
    );
    await until(
      "every entry's health was checked",
      () => new Set(checks()).size,
      (n) => n === STORM,
    );
    // One more add wakes one more pass: it checks the newcomer only, every other verdict being this interval's.
    await add(STORM);
    await until(
      "the last entry's health was checked",
      () => machines.runs("health", address(STORM)),
      (n) => n === 1,
    );
    storming = false;
    await probing;
    const perEntry = new Map<string, number>();
    for (const line of checks()) perEntry.set(line, (perEntry.get(line) ?? 0) + 1);
    assert.deepEqual(
      [...perEntry].filter(([, n]) => n !== 1),
      [],
      "no entry was checked twice in one interval",
    );
    assert.equal(perEntry.size, STORM + 1);
    const statuses = [...new Set(probes.map((p) => p.status))];
    assert.ok(probes.length > 0 && statuses.every((status) => status === 200), `/health answered ${probes.length} probes: ${statuses.join(", ")}`);
    const slowest = Math.max(...probes.map((p) => p.ms));
    assert.ok(slowest < HEALTH_BOUND_MS, `the slowest of ${probes.length} /health probes took ${Math.round(slowest)} ms, over ${HEALTH_BOUND_MS} ms`);
  });
});
