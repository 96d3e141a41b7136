// npm run sim -- [--seed N | --seeds COUNT [--from N]] [--machines N] [--hours H] [--pass-seconds S] [--without KIND,KIND]
//   [--draw-config] (proof settings and sabakan/kubernetes sections drawn from the seed, loaded by the config loader)
//   [--escalation] (repair.escalation configured: two repairs in a day hold the machine)
//   [--generation weighted|all_healthy|drawn] (cluster generation rounds too, under that worker selection)
// Runs the data-center simulator (src/sim/simulation.ts): one seed in detail, or a sweep of seeds. Exit code 1 when
// an invariant was violated; the report says how to replay it.
import { summaryLine, type SimReport } from "./sim-report.js";
import { faultsWithout } from "./sim-faults.js";
import { SIM_ESCALATION } from "./sim-escalation.js";
import { simulate } from "./simulation.js";

function option(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} wants a whole number >= 0, got ${JSON.stringify(args[i + 1])}`);
  return value;
}

function printViolation(r: SimReport, replayFlags: string): void {
  const v = r.violation;
  if (!v) return;
  console.log(`\nVIOLATION of ${v.invariant} (seed ${r.seed}): ${v.message}`);
  console.log(r.details ?? "");
  console.log(`\nreplay: npm run sim -- --seed ${r.seed} --machines ${r.machines} --hours ${r.hours}${replayFlags}`);
}

async function main(args: readonly string[]): Promise<number> {
  const machines = option(args, "machines", 100);
  const hours = option(args, "hours", 24);
  if (machines < 1 || machines > 20_000) throw new Error("--machines must be 1 to 20000");
  const i = args.indexOf("--without");
  const without = i < 0 ? [] : (args[i + 1] ?? "").split(",").filter((k) => k !== "");
  const faults = faultsWithout(without);
  const passSeconds = option(args, "pass-seconds", 30);
  if (passSeconds < 1 || passSeconds > 3600) throw new Error("--pass-seconds must be 1 to 3600");
  const settings = args.includes("--escalation") ? { escalation: SIM_ESCALATION } : {};
  const drawConfig = args.includes("--draw-config");
  const g = args.indexOf("--generation");
  const generation = g < 0 ? undefined : args[g + 1];
  if (generation !== undefined && generation !== "weighted" && generation !== "all_healthy" && generation !== "drawn")
    throw new Error("--generation must be weighted, all_healthy or drawn");
  const replayFlags = `${drawConfig ? " --draw-config" : ""}${args.includes("--escalation") ? " --escalation" : ""}${passSeconds !== 30 ? ` --pass-seconds ${passSeconds}` : ""}${without.length > 0 ? ` --without ${without.join(",")}` : ""}${generation ? ` --generation ${generation}` : ""}`;
  if (args.includes("--seeds")) {
    const count = option(args, "seeds", 100);
    const from = option(args, "from", 1);
    const started = performance.now();
    const checked = new Map<string, number>();
    let passes = 0;
    let faultCount = 0;
    let refused = 0;
    for (let seed = from; seed < from + count; seed++) {
      const r = await simulate({ seed, machines, hours, faults, passSeconds, settings, drawConfig, ...(generation && { generation }) });
      passes += r.passes;
      faultCount += r.faults;
      if (r.refused !== null) refused++;
      for (const [k, n] of r.checked) checked.set(k, (checked.get(k) ?? 0) + n);
      if (r.violation) {
        console.log(summaryLine(r));
        printViolation(r, replayFlags);
        return 1;
      }
    }
    const minutes = (performance.now() - started) / 60_000;
    console.log(
      `${count} seeds (${from}..${from + count - 1}), ${machines} machines, ${hours} h each: no violation${refused > 0 ? ` (${refused} configs refused, not run)` : ""}; ${passes} passes, ${faultCount} faults, ${(count / minutes).toFixed(1)} seeds/min`,
    );
    for (const [k, n] of checked) console.log(`  ${k}: checked ${n} times`);
    return 0;
  }
  const r = await simulate({ seed: option(args, "seed", 42), machines, hours, faults, passSeconds, settings, drawConfig, ...(generation && { generation }) });
  console.log(summaryLine(r));
  console.log(`faults injected: ${[...r.faultKinds].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
  console.log("invariants checked:");
  for (const [k, n] of r.checked) console.log(`  ${k}: ${n} times`);
  printViolation(r, replayFlags);
  return r.violation ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    console.error(`kintsugi sim: ${(err as Error).message}`);
    process.exitCode = 2;
  },
);
