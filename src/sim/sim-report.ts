import type { KintsugiStore } from "../store/store-port.js";
import type { SimSettings } from "./sim-config.js";
import type { SimFault } from "./sim-faults.js";
import type { Violation } from "./sim-checks.js";

/** What one seed's run found. */
export interface SimReport {
  readonly seed: number;
  readonly machines: number;
  readonly hours: number;
  readonly settings: SimSettings;
  /** The model's draws in a line (see describeModel). */
  readonly model: string;
  readonly passes: number;
  readonly faults: number;
  /** The faults and operators' actions injected, by kind. */
  readonly faultKinds: ReadonlyMap<string, number>;
  readonly restarts: number;
  readonly entries: number;
  readonly finished: number;
  /** How many times each invariant was checked. */
  readonly checked: ReadonlyMap<string, number>;
  readonly violation: Violation | null;
  /** The entry's history and the faults that led to the violation, as text; null without a violation. */
  readonly details: string | null;
  /** Why serve would refuse the drawn config (the run did not happen); null when it was run. */
  readonly refused: string | null;
}

const at = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** The entries a violation names: its own, those of its machine, and those its message names ("entries 3, 8"). */
function named(v: Violation): Set<number> {
  const indexes = new Set<number>(v.entryIndex === null ? [] : [v.entryIndex]);
  for (const m of v.message.matchAll(/entr(?:y|ies) \(?((?:\d+(?:, | and | -> )?)+)/g))
    for (const n of (m[1] ?? "").split(/\D+/)) if (n !== "") indexes.add(Number(n));
  return indexes;
}

/** The violated entries' histories (and those of its machine's entries) and the faults on its machine and the data center. */
export async function violationReport(v: Violation, store: KintsugiStore, faults: readonly SimFault[]): Promise<string> {
  const lines: string[] = [];
  const indexes = named(v);
  const entries = store.entries.list().filter((e) => indexes.has(e.index) || (v.address !== null && e.address === v.address));
  for (const e of entries) {
    lines.push(`history of entry ${e.index} (${e.address}, ${e.operation}):`);
    // An operation id ends in random bytes (unique across processes by design): masked, so a replay prints the same.
    for (const r of await store.entries.history(e.index))
      lines.push(
        `  ${at(r.time)} ${r.kind} ${r.status}/${r.step}/${r.stepStatus}${r.deleted ? " deleted" : ""} by ${r.actor}: ${r.reason.replace(/(operation id [\w-]+-)[0-9a-f]{8}\b/g, "$1*")}`,
      );
  }
  const related = faults.filter((f) => f.address === null || f.address === v.address || (v.entryIndex !== null && f.detail.includes(`entry ${v.entryIndex}`)));
  lines.push(`faults on ${v.address ?? "the data center"} and the whole data center (${related.length} of ${faults.length}):`);
  for (const f of related.slice(-40)) lines.push(`  ${at(f.at)} ${f.kind}${f.address ? ` ${f.address}` : ""}: ${f.detail}`);
  return lines.join("\n");
}

/** One line per report: the figures the issue asks for. */
export function summaryLine(r: SimReport): string {
  const checks = [...r.checked.values()].reduce((a, b) => a + b, 0);
  const proof = r.settings.proof ? ` proof ${r.settings.proof.requires.join("+") || "health"} dwell ${r.settings.proof.dwellSeconds} s` : "";
  if (r.refused !== null) return `seed ${r.seed}:${proof}: config refused, not run: ${r.refused}`;
  return `seed ${r.seed}: ${r.machines} machines, ${r.hours} h, max_concurrent_repairs ${r.settings.maxConcurrentRepairs}${proof}, ${r.model}: ${r.passes} passes, ${r.faults} faults, ${r.restarts} failovers, ${r.entries} entries (${r.finished} finished), ${checks} invariant checks: ${r.violation ? `VIOLATION ${r.violation.invariant}` : "ok"}`;
}
