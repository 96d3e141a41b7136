import { summaryLine, type SimReport } from "./sim-report.js";
import { CLASSIC_FAULTS, FULL_FAULTS, faultsWithout, withFencedDeletions } from "./sim-faults.js";
import { SIM_ESCALATION } from "./sim-escalation.js";
import { simulate, type SimOptions } from "./simulation.js";
import { runSweep } from "./sim-sweep.js";
import type { SimGenerationPolicy } from "./sim-generation.js";

export const USAGE = `usage: npm run sim -- [options]

Runs kintsugi's real rules and workers over a simulated data center on a virtual clock (docs/testing.md).

  --seed N            replay one seed in detail (default 42)
  --seeds COUNT       sweep COUNT seeds instead, from --from N (default 1)
  --machines N        machines in the data center, 1 to 20000 (default 100)
  --hours H           hours of faults (default 24); a quiet tail follows in which every entry must finish
  --pass-seconds S    virtual seconds between passes, 1 to 3600 (default 30)
  --classic           the first model: no extension drawn, the classic faults (most regression seeds' model)
  --without K,K       leave these fault kinds out (an unknown kind lists the known ones)
  --fenced-deletions  also a frozen leader's entries deleted and added again while their commands run on
  --escalation        repair.escalation on (two repairs in a day hold the machine); the whole model draws its own
  --draw-config       draw the proof and the sabakan and kubernetes sections, load them through the config loader
  --generation P      cluster generation rounds too: weighted, all_healthy or drawn
  --trace FROM-TO     print every entry after each pass from minute FROM to minute TO (with --seed)
  --sweep             run the sweep npm test runs (test/sim/), stop at the first violation; --json prints it as JSON
  --help              print this

Exit status: 0 when every invariant held, 1 on a violation (with the command that replays it), 2 on a usage error.`;

function option(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} wants a whole number >= 0, got ${JSON.stringify(args[i + 1])}`);
  return value;
}

const KNOWN = new Set(["--trace", "--seed", "--seeds", "--from", "--machines", "--hours", "--pass-seconds", "--without", "--generation"]);
const FLAGS = new Set(["--classic", "--escalation", "--draw-config", "--fenced-deletions", "--sweep", "--json", "--help"]);

/** Refuses what is not an option (a typo must not run seed 42 for 24 h). */
function checkArgs(args: readonly string[]): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (KNOWN.has(a)) i++;
    else if (!FLAGS.has(a)) throw new Error(`unknown option ${JSON.stringify(a)}\n\n${USAGE}`);
  }
}

/** The flags that replay a run with these options (besides seed, machines and hours). */
export function replayFlags(o: Omit<SimOptions, "seed" | "machines" | "hours">, without: readonly string[]): string {
  return [
    o.model === "classic" ? " --classic" : "",
    o.drawConfig ? " --draw-config" : "",
    o.settings?.escalation ? " --escalation" : "",
    o.passSeconds !== undefined && o.passSeconds !== 30 ? ` --pass-seconds ${o.passSeconds}` : "",
    without.length > 0 ? ` --without ${without.join(",")}` : "",
    o.generation ? ` --generation ${o.generation}` : "",
  ].join("");
}

function printViolation(r: SimReport, flags: string, out: (line: string) => void): void {
  const v = r.violation;
  if (!v) return;
  out(`\nVIOLATION of ${v.invariant} (seed ${r.seed}): ${v.message}`);
  out(r.details ?? "");
  out(`\nreplay: npm run sim -- --seed ${r.seed} --machines ${r.machines} --hours ${r.hours}${flags}`);
}

/**
 * `npm run sim`: one seed in detail, a sweep of seeds, or the sweep npm test runs (see USAGE). Resolves with the
 * exit status: 0 when every invariant held, 1 on a violation; rejects on a usage error.
 */
export async function simCli(args: readonly string[], out: (line: string) => void = (line) => console.log(line)): Promise<number> {
  if (args.includes("--help")) {
    out(USAGE);
    return 0;
  }
  checkArgs(args);
  if (args.includes("--sweep")) return runSweep({ json: args.includes("--json"), out });
  const machines = option(args, "machines", 100);
  const hours = option(args, "hours", 24);
  if (machines < 1 || machines > 20_000) throw new Error("--machines must be 1 to 20000");
  const model = args.includes("--classic") ? ("classic" as const) : ("full" as const);
  const i = args.indexOf("--without");
  const without = i < 0 ? [] : (args[i + 1] ?? "").split(",").filter((k) => k !== "");
  const fencedDeletions = args.includes("--fenced-deletions");
  const drawn = faultsWithout(without, model === "classic" ? CLASSIC_FAULTS : FULL_FAULTS);
  const faults = fencedDeletions ? withFencedDeletions(drawn) : drawn;
  const passSeconds = option(args, "pass-seconds", 30);
  if (passSeconds < 1 || passSeconds > 3600) throw new Error("--pass-seconds must be 1 to 3600");
  const settings = args.includes("--escalation") ? { escalation: SIM_ESCALATION } : {};
  const drawConfig = args.includes("--draw-config");
  const g = args.indexOf("--generation");
  const policy = g < 0 ? undefined : args[g + 1];
  if (policy !== undefined && policy !== "weighted" && policy !== "all_healthy" && policy !== "drawn")
    throw new Error("--generation must be weighted, all_healthy or drawn");
  const generation: SimGenerationPolicy | undefined = policy;
  const common = { machines, hours, faults, passSeconds, settings, drawConfig, model, ...(generation && { generation }) };
  const flags = replayFlags(common, without) + (fencedDeletions ? " --fenced-deletions" : "");
  if (args.includes("--seeds")) {
    const count = option(args, "seeds", 100);
    const from = option(args, "from", 1);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const checked = new Map<string, number>();
    let passes = 0;
    let faultCount = 0;
    let refused = 0;
    for (let seed = from; seed < from + count; seed++) {
      const r = await simulate({ seed, ...common });
      passes += r.passes;
      faultCount += r.faults;
      if (r.refused !== null) refused++;
      for (const [k, n] of r.checked) checked.set(k, (checked.get(k) ?? 0) + n);
      if (r.violation) {
        out(summaryLine(r));
        printViolation(r, flags, out);
        return 1;
      }
    }
    const minutes = (performance.now() - started) / 60_000;
    const used = process.cpuUsage(cpu);
    const cpuMinutes = (used.user + used.system) / 60e6;
    const checks = [...checked.values()].reduce((a, b) => a + b, 0);
    out(
      `${count} seeds (${from}..${from + count - 1}), ${machines} machines, ${hours} h each, ${model} model: no violation${refused > 0 ? ` (${refused} configs refused, not run)` : ""}; ${passes} passes, ${faultCount} faults, ${checks} invariant checks (${Math.round(checks / count)} a run), ${(count / minutes).toFixed(1)} seeds/min (${(count / cpuMinutes).toFixed(1)} a CPU minute)`,
    );
    for (const [k, n] of checked) out(`  ${k}: checked ${n} times`);
    return 0;
  }
  const t = args.indexOf("--trace");
  const window = t < 0 ? null : /^(\d+)-(\d+)$/.exec(args[t + 1] ?? "");
  if (t >= 0 && !window) throw new Error("--trace wants FROM-TO, minutes of the run (e.g. 55-61)");
  const trace = window ? { from: Number(window[1]), to: Number(window[2]), print: out } : undefined;
  const r = await simulate({ seed: option(args, "seed", 42), ...common, ...(trace && { trace }) });
  out(summaryLine(r));
  out(`faults injected: ${[...r.faultKinds].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
  out("invariants checked:");
  for (const [k, n] of r.checked) out(`  ${k}: ${n} times`);
  printViolation(r, flags, out);
  return r.violation ? 1 : 0;
}
