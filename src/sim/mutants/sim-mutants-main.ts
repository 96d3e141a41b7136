// npm run sim:mutants -- [--only NAME,NAME] [--jobs N] [--list] [--help]
// Applies each named rule mutation of the catalogue (mutant-catalogue.ts) to a scratch copy of the tree and runs the
// sweep npm test runs there (npm run sim -- --sweep), stopping at its first violation: prints, for every mutant,
// caught or not, by which invariant and seed, and how long; and the unmutated sweep's time. Exit status 1 when a
// mutant survives or no longer applies to the source, 2 for a usage error.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { scratchRoot } from "../sim-options.js";
import type { SweepOutcome } from "../sim-sweep.js";
import { mutantTree, StaleMutantError } from "./apply-mutant.js";
import { MUTANTS, type Mutant } from "./mutant-catalogue.js";

const ROOT = resolve(import.meta.dirname, "../../..");

/** Runs the npm test sweep in `dir` (a child process: the mutated modules load there), resolving with its outcome. */
function sweepIn(dir: string): Promise<SweepOutcome> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/sim/sim-main.ts", "--sweep", "--json"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", () => {
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        done(JSON.parse(line) as SweepOutcome);
      } catch {
        // A mutant that makes the code throw is caught too, but say how: the sweep could not run.
        fail(new Error(`the sweep did not report: ${(err || out).trim().split("\n").slice(-5).join(" | ")}`));
      }
    });
  });
}

interface Result {
  readonly mutant: Mutant;
  readonly line: string;
  readonly caught: boolean;
}

/** The tree every mutant is made from: the working tree as it was when the run began (edits meanwhile do not leak in). */
let base = ROOT;

async function run(mutant: Mutant): Promise<Result> {
  let dir: string;
  try {
    dir = mutantTree(base, mutant, scratchRoot(), resolve(ROOT, "node_modules"));
  } catch (err) {
    if (err instanceof StaleMutantError) return { mutant, caught: false, line: `${mutant.name}: STALE: ${err.message}` };
    throw err;
  }
  try {
    const started = performance.now();
    const outcome = await sweepIn(dir).catch((err: unknown) => err as Error);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (outcome instanceof Error) return { mutant, caught: true, line: `${mutant.name}: caught, the sweep failed to run (${outcome.message}), ${seconds} s` };
    const v = outcome.violation;
    if (v === null) return { mutant, caught: false, line: `${mutant.name}: NOT CAUGHT by ${outcome.seeds} seeds in ${seconds} s (${mutant.rule})` };
    return { mutant, caught: true, line: `${mutant.name}: caught by ${v.invariant} at seed ${v.seed} of ${v.run}, after ${outcome.seeds} seeds, ${seconds} s` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE = `usage: npm run sim:mutants -- [options]

Applies each rule mutation of the catalogue (src/sim/mutants/mutant-catalogue.ts) to a scratch copy of the tree and
runs there the simulator sweep npm test runs (npm run sim -- --sweep), which must catch every one (docs/testing.md).
Prints the unmutated sweep's time, then for each mutant the invariant and seed that caught it, or NOT CAUGHT.

  --only NAME,NAME    only these mutants
  --jobs N            run N mutants at once, 1 to 16 (default 1)
  --list              list the mutants and the rules they break, run nothing
  --help              print this

Exit status: 0 when every mutant was caught, 1 when one survived or no longer applies (its rule moved: write it
again), 2 on a usage error.`;

async function main(args: readonly string[]): Promise<number> {
  if (args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  const known = new Set(["--only", "--jobs", "--list", "--help"]);
  const bad = args.filter((a, k) => a.startsWith("--") && !known.has(a) && !(k > 0 && ["--only", "--jobs"].includes(args[k - 1] ?? "")));
  if (bad.length > 0) throw new Error(`unknown option ${bad.join(", ")} (npm run sim:mutants -- --help)`);
  const i = args.indexOf("--only");
  const only = i < 0 ? null : (args[i + 1] ?? "").split(",").filter((n) => n !== "");
  const unknown = only?.filter((n) => !MUTANTS.some((m) => m.name === n)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown mutant(s) ${unknown.join(", ")}; known: ${MUTANTS.map((m) => m.name).join(", ")}`);
  if (args.includes("--list")) {
    for (const m of MUTANTS) console.log(`${m.name}: ${m.rule} (${m.file})`);
    return 0;
  }
  const j = args.indexOf("--jobs");
  const jobs = j < 0 ? 1 : Number(args[j + 1]);
  if (!Number.isSafeInteger(jobs) || jobs < 1 || jobs > 16) throw new Error("--jobs wants 1 to 16");
  const chosen = only ? MUTANTS.filter((m) => only.includes(m.name)) : MUTANTS;

  base = mutantTree(ROOT, null, scratchRoot());
  try {
    return await catalogue(chosen, jobs);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The unmutated sweep (it must pass, or mutants prove nothing), then each mutant's, `jobs` at a time. */
async function catalogue(chosen: readonly Mutant[], jobs: number): Promise<number> {
  const started = performance.now();
  const baseline = await sweepIn(base);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (baseline.violation) {
    const v = baseline.violation;
    console.log(`the unmutated sweep fails (${v.invariant}, seed ${v.seed} of ${v.run}): mutants would prove nothing`);
    return 1;
  }
  console.log(`the unmutated npm test sweep: ${baseline.seeds} seeds, no violation, ${seconds} s (the time a surviving mutant takes)`);
  const results: Result[] = [];
  const queue = [...chosen];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
        const r = await run(m);
        results.push(r);
        console.log(r.line);
      }
    }),
  );
  const survived = results.filter((r) => !r.caught);
  const names = survived.map((r) => r.mutant.name).join(", ");
  console.log(`\n${results.length - survived.length} of ${results.length} mutants caught${survived.length > 0 ? `; not caught: ${names}` : ""}`);
  return survived.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`kintsugi sim:mutants: ${(err as Error).message}`);
    process.exitCode = 2;
  },
);
