import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SabakanAnswer } from "../../src/adapters/sabakan-gateway-client.js";
import type { AutoRepairOutcome } from "../../src/domain/intake/auto-repair-outcome.js";
import { FLEET_CEILING } from "../../src/graphql/limits/list-bounds.js";
import type { StoreCommit } from "../../src/store/store-port.js";
import { SILENT_LOG } from "../../src/support/log.js";
import { observedFleet } from "../../src/wiring/fleet-observer.js";
import { until } from "../support/until.js";

/** A store whose newest kept poll outcome saw `seen` machines (none kept when null). */
function storeWith(seen: number | null) {
  const listeners: Array<(commit: StoreCommit) => void> = [];
  return {
    onCommit: (listener: (commit: StoreCommit) => void) => {
      listeners.push(listener);
      return () => undefined;
    },
    outcomes: { last: async () => (seen === null ? [] : [{ machinesSeen: seen } as AutoRepairOutcome]) },
    commitOutcome: (machinesSeen: number) => listeners.forEach((l) => l({ outcome: { machinesSeen } } as unknown as StoreCommit)),
  };
}

/** A sabakan that answers the count with `answers` in turn: a number of machines, or an error thrown. */
function sabakanAnswering(...answers: Array<number | Error | "never">) {
  const asked: string[] = [];
  return {
    asked,
    execute: async (document: string): Promise<SabakanAnswer> => {
      asked.push(document);
      const next = answers.length > 1 ? answers.shift() : answers[0];
      if (next === "never") return new Promise<SabakanAnswer>(() => undefined);
      if (next instanceof Error) throw next;
      return { data: { searchMachines: Array.from({ length: next ?? 0 }, () => ({ spec: { serial: "s" } })) }, errors: [] };
    },
  };
}

describe("observedFleet (the fleet the cost model weighs by, known before the first request)", () => {
  it("without sabakan: the newest kept poll outcome's count, read before it returns", async () => {
    const observed = await observedFleet(storeWith(7_000), null, SILENT_LOG);
    assert.deepEqual([observed.fleet.machines, observed.fleet.known], [7_000, true]);
    observed.stop();
  });

  it("with sabakan: its count of the whole fleet, asked once (unfiltered) before it returns", async () => {
    const sabakan = sabakanAnswering(10_000);
    const observed = await observedFleet(storeWith(null), sabakan, SILENT_LOG);
    assert.deepEqual([observed.fleet.machines, observed.fleet.known], [10_000, true]);
    assert.equal(sabakan.asked.length, 1);
    assert.match(sabakan.asked[0] ?? "", /searchMachines \{\s*spec \{ serial \}/);
    observed.stop();
  });

  it("while sabakan has not answered the count, the largest fleet the defaults are made for; filtered answers cannot end it", async () => {
    const store = storeWith(300);
    const sabakan = sabakanAnswering(new Error("connection refused"), new Error("connection refused"), 12_000);
    const observed = await observedFleet(store, sabakan, SILENT_LOG, { retryMs: 5 });
    assert.deepEqual([observed.fleet.machines, observed.fleet.known], [FLEET_CEILING, false]);
    store.commitOutcome(40);
    observed.fleet.observe(1);
    assert.equal(observed.fleet.machines, FLEET_CEILING, "a poll of part of the fleet, a filtered search");
    await until(
      "sabakan answered a retry",
      () => observed.fleet.known,
      (known) => known,
    );
    assert.equal(observed.fleet.machines, 12_000);
    assert.equal(sabakan.asked.length, 3);
    observed.stop();
  });

  it("a sabakan that never answers holds the start no longer than the wait", async () => {
    const observed = await observedFleet(storeWith(null), sabakanAnswering("never"), SILENT_LOG, { waitMs: 20 });
    assert.deepEqual([observed.fleet.machines, observed.fleet.known], [FLEET_CEILING, false]);
    observed.stop();
  });
});
