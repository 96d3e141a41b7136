import { faultsWithout, FULL_FAULTS, withFencedDeletions } from "./sim-faults.js";
import { REGRESSION_SEEDS } from "./sim-regression-seeds.js";
import { summaryLine, type SimReport } from "./sim-report.js";
import { simulate, type SimOptions } from "./simulation.js";

/** Seeds of one kind of run, as npm test sweeps them; `replay` is the `npm run sim` flags that replay a seed. */
export interface SweepRun {
  readonly name: string;
  /** The test file that runs it (test/sim/NAME.test.ts). */
  readonly file: "sweep" | "generation-sweep" | "regression-seeds";
  readonly seeds: readonly number[];
  readonly options: Omit<SimOptions, "seed">;
  readonly replay: string;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The sweep of the whole model (every rule drawn per seed, faults aimed where they hurt): the seeds npm test runs,
 * each one hour of faults then a quiet tail, a pass a minute. Bounded to about half a minute of CPU here; every mutant
 * of the catalogue (src/sim/mutants/) is caught by it or by the runs below (the last of them at seed 26 of the first
 * run: seeds 31-60 caught none and cost 15 s of CPU). `npm run sim -- --seeds 1000` sweeps further.
 */
export const SWEEP: readonly SweepRun[] = [
  {
    name: "the whole model, 100 machines, 1 h",
    file: "sweep",
    seeds: range(1, 30),
    options: { machines: 100, hours: 1, passSeconds: 60 },
    replay: "--machines 100 --hours 1 --pass-seconds 60",
  },
  {
    name: "the whole model, 1,000 machines, 1 h",
    file: "sweep",
    seeds: range(1, 2),
    options: { machines: 1000, hours: 1, passSeconds: 60 },
    replay: "--machines 1000 --hours 1 --pass-seconds 60",
  },
  {
    name: "the whole model, 100 machines, 1 h, entries deleted beside their inherited commands",
    file: "sweep",
    seeds: range(1, 4),
    options: { machines: 100, hours: 1, passSeconds: 60, faults: withFencedDeletions(FULL_FAULTS) },
    replay: "--machines 100 --hours 1 --pass-seconds 60 --fenced-deletions",
  },
  {
    name: "the classic model, 100 machines, 6 h without CKE reboots",
    file: "sweep",
    seeds: range(1, 4),
    options: { machines: 100, hours: 6, model: "classic", faults: faultsWithout(["cke-reboot"]) },
    replay: "--machines 100 --hours 6 --classic --without cke-reboot",
  },
];

/** Cluster generation with the repairs and every classic fault, under each worker selection (a round a minute). */
export const GENERATION_SWEEP: readonly SweepRun[] = (["weighted", "all_healthy"] as const).map((policy) => ({
  name: `cluster generation under ${policy}, 100 machines, 1 h`,
  file: "generation-sweep",
  seeds: range(1, 3),
  options: { machines: 100, hours: 1, passSeconds: 60, model: "classic", generation: policy },
  replay: `--machines 100 --hours 1 --pass-seconds 60 --classic --generation ${policy}`,
}));

/** Everything npm test's simulator files sweep, in the order `npm run sim -- --sweep` runs it. */
export const NPM_TEST_SWEEP: readonly SweepRun[] = [...SWEEP, ...REGRESSION_SEEDS, ...GENERATION_SWEEP];

/** What the first violated invariant of a sweep was, or null; and how long the sweep ran. */
export interface SweepOutcome {
  readonly violation: { readonly invariant: string; readonly seed: number; readonly run: string; readonly message: string; readonly replay: string } | null;
  readonly seconds: number;
  readonly seeds: number;
}

/** Runs the sweep, stopping at the first violation; `each` hears of every report. */
export async function sweep(runs: readonly SweepRun[], each: (run: SweepRun, r: SimReport) => void = () => {}): Promise<SweepOutcome> {
  const started = performance.now();
  let seeds = 0;
  for (const run of runs) {
    for (const seed of run.seeds) {
      const r = await simulate({ ...run.options, seed });
      seeds++;
      each(run, r);
      if (r.violation) {
        const replay = `npm run sim -- --seed ${seed} ${run.replay}`;
        return {
          violation: { invariant: r.violation.invariant, seed, run: run.name, message: r.violation.message, replay },
          seconds: (performance.now() - started) / 1000,
          seeds,
        };
      }
    }
  }
  return { violation: null, seconds: (performance.now() - started) / 1000, seeds };
}

/** `npm run sim -- --sweep [--json]`: the npm test sweep; exit status 1 on a violation. */
export async function runSweep({ json, out }: { readonly json: boolean; readonly out: (line: string) => void }): Promise<number> {
  const outcome = await sweep(NPM_TEST_SWEEP, (_run, r) => {
    if (!json) out(summaryLine(r));
  });
  if (json) out(JSON.stringify(outcome));
  else if (outcome.violation)
    out(
      `\nVIOLATION of ${outcome.violation.invariant} (${outcome.violation.run}, seed ${outcome.violation.seed}): ${outcome.violation.message}\nreplay: ${outcome.violation.replay}`,
    );
  else out(`\nthe npm test sweep: ${outcome.seeds} seeds, no violation, ${outcome.seconds.toFixed(1)} s`);
  return outcome.violation ? 1 : 0;
}
