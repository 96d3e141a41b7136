// bench/command-starts: what starting a command costs the replica's event loop, through the spawner (a child process
// that forks for it: src/adapters/command-spawner.ts) and in the replica itself (node's spawn, one a turn), each
// command through the launcher as the runner runs it. The process first grows to a replica's size (BALLAST_MB of
// touched memory: a fork copies the page tables of all of it), then runs ROUNDS rounds of COMMANDS `true` at once, the
// two ways alternating. Figures per command: the event loop's busy time (performance.eventLoopUtilization), and the
// loop's longest stall (monitorEventLoopDelay), and the burst's wall time. Prints figures; asserts nothing.
// Run: node --import tsx bench/command-starts.ts [COMMANDS] [ROUNDS] [BALLAST_MB]
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { ProcessCommandRunner } from "../src/adapters/command-runner.js";
import { CommandSpawner } from "../src/adapters/command-spawner.js";

const COMMANDS = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 3);
const BALLAST_MB = Number(process.argv[4] ?? 300);

const ballast = Buffer.alloc(BALLAST_MB * 1024 * 1024, 1);

const ways: Array<{ name: string; runner: ProcessCommandRunner }> = [
  { name: "spawner", runner: new ProcessCommandRunner({ spawner: new CommandSpawner() }) },
  { name: "in the replica", runner: new ProcessCommandRunner({ spawner: null }) },
];

async function burst(runner: ProcessCommandRunner): Promise<{ busyMs: number; stallMs: number; wallMs: number; failed: number }> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  delay.enable();
  const outcomes = await Promise.all(Array.from({ length: COMMANDS }, () => runner.run(["true"], { timeoutSeconds: 30 })));
  delay.disable();
  const used = performance.eventLoopUtilization(elu);
  return { busyMs: used.active, stallMs: delay.max / 1e6, wallMs: performance.now() - started, failed: outcomes.filter((o) => o.kind !== "ok").length };
}

console.log(
  `${COMMANDS} commands at once, ${ROUNDS} rounds; rss ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MB (ballast ${ballast.length / 2 ** 20} MB)`,
);
// Warm both (the spawner's own start is not a command's cost).
for (const way of ways) await way.runner.run(["true"], { timeoutSeconds: 30 });
for (let round = 1; round <= ROUNDS; round++) {
  for (const way of ways) {
    const r = await burst(way.runner);
    console.log(
      `  round ${round}, ${way.name.padEnd(14)}: event loop busy ${(r.busyMs / COMMANDS).toFixed(2)} ms a command, longest stall ${r.stallMs.toFixed(1)} ms, ` +
        `${((COMMANDS * 1000) / r.wallMs).toFixed(0)} commands/s${r.failed > 0 ? `, ${r.failed} not ok` : ""}`,
    );
  }
}
