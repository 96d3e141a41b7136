import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import type { FaultMix } from "./sim-faults.js";
import type { SimSettings } from "./sim-config.js";
import type { SimGenerationPolicy } from "./sim-generation.js";
import type { SimReport } from "./sim-report.js";

/** What one simulator run is asked to do. */
export interface SimOptions {
  readonly seed: number;
  readonly machines: number;
  readonly hours: number;
  /** Virtual seconds between runner passes (and health-check evaluations); the poller runs every minute. */
  readonly passSeconds?: number;
  /** The faults drawn (default: all). */
  readonly faults?: FaultMix;
  /** Overrides what the seed draws of kintsugi's configuration. */
  readonly settings?: Partial<SimSettings>;
  /**
   * Draw the proof settings and the file's sabakan and kubernetes sections from the seed (a stream of their own, so
   * the rest of the run is the seed's as without it) and load them through the real config loader; a config serve
   * would refuse is not run (the report says why). Without sabakan, the runner reads no sabakan state and no poll runs.
   */
  readonly drawConfig?: boolean;
  /**
   * Run cluster generation rounds too (src/sim/sim-generation.ts) under this worker selection, or one the seed draws;
   * absent: none. Its operators draw from a stream of their own: the repairs' faults are the seed's as without it.
   */
  readonly generation?: SimGenerationPolicy;
  /**
   * "full" (the default): every rule kintsugi has, drawn per seed (src/sim/sim-model.ts), and the whole model's
   * faults; "classic": the first model, whose seeds replay the histories they were found in.
   */
  readonly model?: "classic" | "full";
  /** Prints every entry after each pass from minute `from` to minute `to` of the run (debugging a violation). */
  readonly trace?: { readonly from: number; readonly to: number; readonly print: (line: string) => void };
}

/** The report of a run whose drawn configuration serve would refuse: nothing ran. */
export function refusedReport(options: SimOptions, settings: SimSettings, refused: string, model: string): SimReport {
  return {
    seed: options.seed,
    machines: options.machines,
    hours: options.hours,
    settings,
    model,
    passes: 0,
    faults: 0,
    restarts: 0,
    entries: 0,
    finished: 0,
    checked: new Map(),
    violation: null,
    details: null,
    faultKinds: new Map(),
    refused,
  };
}

/** A RAM-backed directory when there is one: the store's fsyncs then cost nothing. */
export function scratchRoot(): string {
  return existsSync("/dev/shm") && statSync("/dev/shm").isDirectory() ? "/dev/shm" : tmpdir();
}

/** How many times each kind occurs. */
export function countKinds(kinds: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of kinds) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}
