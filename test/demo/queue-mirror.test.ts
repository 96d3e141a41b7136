import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import type { RepairHistoryKind } from "../../src/domain/queue/repair-history.js";
import type { RepairChange } from "../../src/store/store-port.js";
import { QueueMirror } from "../../scripts/demo/queue-mirror.js";
import { entry, T } from "../domain/queue/repair-decision-support.js";

const ADDRESS = "10.69.0.4";
function change(kind: RepairHistoryKind, after: Partial<RepairEntry>, before: Partial<RepairEntry> | null): RepairChange {
  const e = entry(7, { address: ADDRESS, serial: "r0m4", ...after });
  const record = {
    sequence: 1,
    entryIndex: 7,
    time: T,
    kind,
    reason: kind,
    detail: null,
    status: e.status,
    step: e.step,
    stepStatus: e.stepStatus,
    deleted: e.deleted,
    actor: "kintsugi",
  };
  return { entry: e, previous: before === null ? null : entry(7, { address: ADDRESS, serial: "r0m4", ...before }), record };
}

describe("QueueMirror", () => {
  it("follows an entry from its creation to its dequeue: in the queue, finished, lingering, being deleted, gone", () => {
    const queue = new QueueMirror();
    const seen = () => ({ has: queue.has(ADDRESS), lingers: queue.lingers(ADDRESS), size: queue.size });
    assert.deepEqual(queue.apply([change("created", {}, null)]), []);
    assert.deepEqual(seen(), { has: true, lingers: false, size: 1 });
    assert.deepEqual(queue.apply([change("transition", { status: "processing", stepStatus: "draining" }, {})]), []);
    assert.deepEqual(queue.apply([change("transition", { status: "succeeded" }, { status: "processing", stepStatus: "watching" })]), [
      { index: 7, address: ADDRESS, succeeded: true },
    ]);
    assert.deepEqual(seen(), { has: true, lingers: true, size: 1 });
    assert.deepEqual(
      queue.apply([change("delete-requested", { status: "succeeded", deleted: true }, { status: "succeeded" })]),
      [],
      "a finished entry finishes once",
    );
    assert.deepEqual(seen(), { has: true, lingers: false, size: 1 });
    assert.deepEqual(queue.apply([change("dequeued", { status: "succeeded", deleted: true }, { status: "succeeded", deleted: true })]), []);
    assert.deepEqual(seen(), { has: false, lingers: false, size: 0 });
  });

  it("reports a failed repair as not succeeded", () => {
    const queue = new QueueMirror();
    assert.deepEqual(queue.apply([change("transition", { status: "failed" }, { status: "processing" })]), [{ index: 7, address: ADDRESS, succeeded: false }]);
    assert.deepEqual(queue.of(ADDRESS), [{ index: 7, address: ADDRESS, serial: "r0m4", finished: true, deleted: false }]);
  });
});
