import { Histogram, type Registry } from "./prom-client.js";
import { isFinished } from "../domain/queue/repair-entry.js";
import type { RepairChange } from "../store/store-port.js";

/**
 * Distinct values of `operation` and of `machine_type` the histogram exports, each; later ones are counted under
 * `other`. Operations come from the config and machine types from sabakan (untrusted): a data center has a few
 * dozen, and the cap keeps a flood of bogus ones from multiplying the series (each value costs a dozen buckets).
 */
export const MAX_TIME_TO_REPAIR_LABEL_VALUES = 50;

/** The longest value exported as a label, as for the pacing gauge (MAX_PACING_LABEL_LENGTH). */
export const MAX_TIME_TO_REPAIR_LABEL_LENGTH = 256;

/** The label for what is past a cap or too long to export. */
export const OTHER_LABEL = "other";

/** Values of one label, bounded in count and length: the first `max` values seen are kept, the rest are `other`. */
class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}

  of(value: string): string {
    if (value.length > MAX_TIME_TO_REPAIR_LABEL_LENGTH) return OTHER_LABEL;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return OTHER_LABEL;
    this.seen.add(value);
    return value;
  }
}

/**
 * `kintsugi_time_to_repair_seconds{operation, machine_type, status}`: creation to finish of every entry that
 * finishes, fed by the commits that finish it (once per entry: its previous state unfinished), on every replica.
 */
export class TimeToRepairHistogram {
  private readonly histogram: Histogram<"operation" | "machine_type" | "status">;
  private readonly operations = new BoundedLabel(MAX_TIME_TO_REPAIR_LABEL_VALUES);
  private readonly machineTypes = new BoundedLabel(MAX_TIME_TO_REPAIR_LABEL_VALUES);

  constructor(registry: Registry) {
    this.histogram = new Histogram({
      name: "kintsugi_time_to_repair_seconds",
      help: `Creation to finish of repairs, by operation, machine type (each capped at ${MAX_TIME_TO_REPAIR_LABEL_VALUES} values, the rest "${OTHER_LABEL}") and status`,
      labelNames: ["operation", "machine_type", "status"],
      buckets: [60, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400, 259200],
      registers: [registry],
    });
  }

  committed(changes: readonly RepairChange[]): void {
    for (const { entry, previous, record } of changes) {
      if (!isFinished(entry) || (previous !== null && isFinished(previous))) continue;
      const labels = { operation: this.operations.of(entry.operation), machine_type: this.machineTypes.of(entry.machineType), status: entry.status };
      this.histogram.observe(labels, Math.max(0, record.time - entry.createdAt) / 1000);
    }
  }
}
