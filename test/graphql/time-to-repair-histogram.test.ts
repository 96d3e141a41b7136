import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Registry } from "../../src/graphql/prom-client.js";
import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { historyRecordFor } from "../../src/domain/queue/repair-history.js";
import { MAX_TIME_TO_REPAIR_LABEL_VALUES, TimeToRepairHistogram } from "../../src/graphql/time-to-repair-histogram.js";
import type { RepairChange } from "../../src/store/store-port.js";
import { NOW } from "../support/fixtures.js";
import { parsePrometheus, sampleValue } from "../support/prometheus-text.js";

const MIN = 60_000;

/** The change that moves an entry of `operation`/`machineType` from `from` to `to` status, `minutes` after its creation. */
function change(from: RepairEntry["status"] | null, to: RepairEntry["status"], minutes: number, operation = "unreachable", machineType = "qemu"): RepairChange {
  const base = { ...createRepairEntry({ address: "10.0.0.1", machineType, operation, serial: null, source: "sabakan" }, NOW), index: 1 };
  const entry = { ...base, status: to };
  const record = { ...historyRecordFor(entry, "transition", to, NOW + minutes * MIN, "kintsugi"), sequence: 1 };
  return { entry, previous: from === null ? null : { ...base, status: from }, record };
}

async function scrape(registry: Registry) {
  return parsePrometheus(await registry.metrics()).samples;
}

describe("kintsugi_time_to_repair_seconds", () => {
  it("observes each entry once, when a commit finishes it, in seconds from its creation", async () => {
    const registry = new Registry();
    const histogram = new TimeToRepairHistogram(registry);
    histogram.committed([
      change("processing", "succeeded", 20),
      change("queued", "processing", 5),
      change("succeeded", "succeeded", 90),
      change("processing", "failed", 120, "retire", "dell"),
    ]);
    const samples = await scrape(registry);
    const labels = { operation: "unreachable", machine_type: "qemu", status: "succeeded" };
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_count", labels), 1, "a finished entry's later change is not a second repair");
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_sum", labels), 20 * 60);
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_bucket", { ...labels, le: "1800" }), 1);
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_bucket", { ...labels, le: "600" }), 0);
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_count", { operation: "retire", machine_type: "dell", status: "failed" }), 1);
  });

  it("caps operation and machine type values, counting the rest (and values too long to export) as other", async () => {
    const registry = new Registry();
    const histogram = new TimeToRepairHistogram(registry);
    const types = Array.from({ length: MAX_TIME_TO_REPAIR_LABEL_VALUES + 5 }, (_, i) => `type-${i}`);
    histogram.committed(types.map((t) => change("processing", "succeeded", 1, "unreachable", t)));
    histogram.committed([change("processing", "succeeded", 1, "x".repeat(300), "type-0")]);
    const samples = (await scrape(registry)).filter((s) => s.name === "kintsugi_time_to_repair_seconds_count");
    const machineTypes = new Set(samples.map((s) => s.labels["machine_type"]));
    assert.equal(machineTypes.size, MAX_TIME_TO_REPAIR_LABEL_VALUES + 1, "the capped values and other");
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_count", { operation: "unreachable", machine_type: "other", status: "succeeded" }), 5);
    assert.equal(sampleValue(samples, "kintsugi_time_to_repair_seconds_count", { operation: "other", machine_type: "type-0", status: "succeeded" }), 1);
  });
});
