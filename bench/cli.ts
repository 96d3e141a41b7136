// bench/cli: the CPU time (user + system, not wall) of one `kintsugi` command of each group, as a script calls it,
// next to a bare `node -e 0` measured in the same rounds. The commands talk to a kintsugi started in this process
// (its work is not counted: only the command's process is timed), which holds 20 entries. Each round runs every
// command once, in turn with the anchor, so the machine's load weighs on all alike; prints the median of each and
// its ratio to the anchor's median (the goal: at most 3x). Needs bash (its `time` reports the child's CPU) and a
// build (npm run bench:cli builds first). Prints figures; asserts nothing.
// Run: npm run bench:cli. KINTSUGI_BENCH_BIN=/path/to/checkout/bin/kintsugi.js measures another build;
// KINTSUGI_BENCH_ROUNDS sets the rounds (default 9).
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { KINTSUGI_BIN, nodeOptionsOf } from "../test/support/run-cli.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { tempDir } from "../test/support/temp-dir.js";

const BIN = process.env["KINTSUGI_BENCH_BIN"] ?? KINTSUGI_BIN;
const ROUNDS = Number(process.env["KINTSUGI_BENCH_ROUNDS"] ?? 9);

/** CPU seconds (user + system) of `argv` run through bash's `time`, and its exit code. */
function cpuOf(argv: readonly string[], cwd: string): Promise<{ cpu: number; code: number }> {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-c", `TIMEFORMAT='%3U %3S'; { time ${quoted} >/dev/null 2>/dev/null; } 2>&1; echo "exit $?"`],
      { cwd, env: { ...process.env, KINTSUGI_TOKEN: "" } },
      (err, stdout) => {
        if (err) return reject(err);
        const [times, exit] = stdout.trim().split("\n").slice(-2);
        const [user, system] = (times ?? "").split(" ").map(Number);
        if (user === undefined || system === undefined || Number.isNaN(user + system)) return reject(new Error(`unreadable times: ${stdout}`));
        resolve({ cpu: user + system, code: Number((exit ?? "").replace("exit ", "")) });
      },
    );
  });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = tempDir("kintsugi-bench-cli-");
  const k = await startTestKintsugi();
  try {
    for (let i = 1; i <= 20; i++) {
      await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.${i}") { index } }`);
    }
    const config = join(dir.path, "kintsugi.yaml");
    writeFileSync(config, `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir.path, "check.db"))}\n`);
    const kintsugi = (...args: string[]) => [process.execPath, ...nodeOptionsOf(BIN), BIN, "--server", k.url, ...args];
    // One command a group, as a script or an operator calls it; the long-running ones (serve, alerts, watch) by their help.
    const commands: ReadonlyArray<readonly [string, readonly string[]]> = [
      ["node -e 0 (the anchor)", [process.execPath, "-e", "0"]],
      ["kintsugi --help", kintsugi("--help")],
      ["kintsugi --version", kintsugi("--version")],
      ["repair-queue list", kintsugi("repair-queue", "list")],
      ["repair-queue is-enabled", kintsugi("repair-queue", "is-enabled")],
      ["repair-queue add", kintsugi("repair-queue", "add", "unreachable", "qemu", "10.0.1.1")],
      ["auto-repair is-enabled", kintsugi("auto-repair", "is-enabled")],
      ["constraints show", kintsugi("constraints", "show")],
      ["health-check list", kintsugi("health-check", "list")],
      ["machine holds", kintsugi("machine", "holds")],
      ["sabakan is-enabled", kintsugi("sabakan", "is-enabled")],
      ["cluster history", kintsugi("cluster", "history")],
      ["stats --since 24h", kintsugi("stats", "--since", "24h")],
      ["replay --help", kintsugi("replay", "--help")],
      ["alerts --help", kintsugi("alerts", "--help")],
      ["token create", kintsugi("token", "create", "bench", "--role", "viewer")],
      ["completion bash", kintsugi("completion", "bash")],
      ["serve --help", kintsugi("serve", "--help")],
      ["check-config FILE", kintsugi("check-config", config)],
      ["db check FILE", kintsugi("db", "check", join(dir.path, "kintsugi.db"))],
    ];
    // A database for db check: the server's own file is held by its lock, so a copy of an empty store.
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [...nodeOptionsOf(BIN), BIN, "db", "backup", join(dir.path, "kintsugi.db"), "--database", k.databasePath], (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    const cpu = new Map<string, number[]>(commands.map(([name]) => [name, []]));
    const failed = new Map<string, number>();
    const load = [loadavg()[0]!];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, argv] of commands) {
        const { cpu: seconds, code } = await cpuOf(argv, dir.path);
        cpu.get(name)!.push(seconds);
        if (code !== 0) failed.set(name, code);
      }
    }
    load.push(loadavg()[0]!);
    const anchor = median(cpu.get(commands[0]![0])!);
    console.log(`kintsugi: ${BIN}`);
    console.log(`${ROUNDS} rounds; load average ${load.map((l) => l.toFixed(1)).join(" -> ")}; CPU = user + system of the command's process (median)\n`);
    console.log("| command | CPU (median) | min - max | x node -e 0 |");
    console.log("|---|---|---|---|");
    for (const [name] of commands) {
      const values = cpu.get(name)!;
      const m = median(values);
      const exit = failed.has(name) ? ` (exit ${failed.get(name)})` : "";
      console.log(
        `| ${name}${exit} | ${(m * 1000).toFixed(0)} ms | ${(Math.min(...values) * 1000).toFixed(0)} - ${(Math.max(...values) * 1000).toFixed(0)} ms | ${(m / anchor).toFixed(1)}x |`,
      );
    }
  } finally {
    await k.dispose();
    dir.remove();
  }
}

await main();
