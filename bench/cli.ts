// bench/cli: the CPU time (user + system, not wall) of one `kintsugi` command of each group, as a script calls it,
// next to a bare `node -e 0` measured in the same rounds, and of `kintsugi serve` from its start to its exit on
// SIGTERM once it logs "kintsugi started" (on a SQLite file of its own, made in the first round). The commands talk
// to a kintsugi started in this process
// (its work is not counted: only the command's process is timed), which holds 20 entries. Each round runs every
// command once, in turn with the anchor, so the machine's load weighs on all alike; prints the median of each and
// its ratio to the anchor's median (the goal: at most 3x). Needs bash (its `time` reports the child's CPU) and a
// build (npm run bench:cli builds first). Prints figures; asserts nothing.
// Run: npm run bench:cli. KINTSUGI_BENCH_BIN=/path/to/checkout/bin/kintsugi.js measures another build;
// KINTSUGI_BENCH_BINS=label=path,label=path several, command by command in each round (one column each);
// KINTSUGI_BENCH_ROUNDS sets the rounds (default 9).
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { KINTSUGI_BIN, nodeOptionsOf } from "../test/support/run-cli.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { tempDir } from "../test/support/temp-dir.js";
import { benchBins, type BenchBin } from "./bench-bins.js";

const BINS = benchBins();
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

/**
 * `argv` (a `kintsugi serve`) run by bash, which reads its log until "kintsugi started" and then stops it with
 * SIGTERM: bash's own reads and signals are all that is counted beside the server's process.
 */
const startedAndStopped = (argv: readonly string[]): string[] => [
  "bash",
  "-c",
  'coproc S { exec "$@" 2>/dev/null; }; while IFS= read -r line <&"${S[0]}"; do case $line in *"kintsugi started"*) kill -TERM "$S_PID"; break;; esac; done; wait "$S_PID"',
  "serve",
  ...argv,
];

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
    const kintsugi =
      (bin: BenchBin) =>
      (...args: string[]) => [process.execPath, ...nodeOptionsOf(bin.path), bin.path, "--server", k.url, ...args];
    const serveConfig = (bin: BenchBin) => {
      const file = join(dir.path, `serve-${BINS.indexOf(bin)}.yaml`);
      writeFileSync(file, `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir.path, `serve-${BINS.indexOf(bin)}.db`))}\n`);
      return file;
    };
    const ANCHOR = "node -e 0 (the anchor)";
    // One command a group, as a script or an operator calls it; the long-running ones (serve, alerts, watch) by their help.
    const commandsOf = (bin: BenchBin): ReadonlyArray<readonly [string, readonly string[]]> => {
      const run = kintsugi(bin);
      return [
        ["kintsugi --help", run("--help")],
        ["kintsugi --version", run("--version")],
        ["repair-queue list", run("repair-queue", "list")],
        ["repair-queue is-enabled", run("repair-queue", "is-enabled")],
        ["repair-queue add", run("repair-queue", "add", "unreachable", "qemu", "10.0.1.1")],
        ["auto-repair is-enabled", run("auto-repair", "is-enabled")],
        ["constraints show", run("constraints", "show")],
        ["health-check list", run("health-check", "list")],
        ["machine holds", run("machine", "holds")],
        ["sabakan is-enabled", run("sabakan", "is-enabled")],
        ["cluster history", run("cluster", "history")],
        ["stats --since 24h", run("stats", "--since", "24h")],
        ["replay --help", run("replay", "--help")],
        ["alerts --help", run("alerts", "--help")],
        ["token create", run("token", "create", "bench", "--role", "viewer")],
        ["completion bash", run("completion", "bash")],
        ["serve --help", run("serve", "--help")],
        ["check-config FILE", run("check-config", config)],
        ["db check FILE", run("db", "check", join(dir.path, "kintsugi.db"))],
        ["serve: start, then SIGTERM", startedAndStopped([process.execPath, ...nodeOptionsOf(bin.path), bin.path, "serve", "--config", serveConfig(bin)])],
      ];
    };
    const names = [ANCHOR, ...commandsOf(BINS[0]!).map(([name]) => name)];
    // Each command's argv per build, the anchor's once: a round runs a command on every build in turn.
    const argvs = new Map<string, Array<readonly [string, readonly string[]]>>(names.map((name) => [name, []]));
    argvs.get(ANCHOR)!.push(["", [process.execPath, "-e", "0"]]);
    for (const bin of BINS) for (const [name, argv] of commandsOf(bin)) argvs.get(name)!.push([bin.label, argv]);
    // A database for db check: the server's own file is held by its lock, so a copy of an empty store (by this checkout, the server's code).
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [...nodeOptionsOf(KINTSUGI_BIN), KINTSUGI_BIN, "db", "backup", join(dir.path, "kintsugi.db"), "--database", k.databasePath],
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    const key = (name: string, label: string) => `${name}\u0000${label}`;
    const cpu = new Map<string, number[]>();
    const failed = new Map<string, number>();
    const load = [loadavg()[0]!];
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        for (const [label, argv] of argvs.get(name)!) {
          const { cpu: seconds, code } = await cpuOf(argv, dir.path);
          cpu.set(key(name, label), [...(cpu.get(key(name, label)) ?? []), seconds]);
          if (code !== 0) failed.set(key(name, label), code);
        }
      }
    }
    load.push(loadavg()[0]!);
    const anchor = median(cpu.get(key(ANCHOR, ""))!);
    console.log(`kintsugi: ${BINS.map((b) => (b.label ? `${b.label} = ${b.path}` : b.path)).join(", ")}`);
    console.log(`${ROUNDS} rounds; load average ${load.map((l) => l.toFixed(1)).join(" -> ")}; CPU = user + system of the command's process (median)\n`);
    const columns = BINS.map((b) => (b.label ? ` ${b.label}:` : ""));
    console.log(`| command |${columns.map((c) => `${c} CPU (median) |${c} min - max |${c} x node -e 0 |`).join("")}`);
    console.log(`|---|${columns.map(() => "---|---|---|").join("")}`);
    for (const name of names) {
      const cells = BINS.map((bin, i) => {
        const label = name === ANCHOR ? "" : bin.label;
        const values = cpu.get(key(name, label));
        if (!values || (name === ANCHOR && i > 0)) return " | | |";
        const m = median(values);
        const exit = failed.has(key(name, label)) ? ` (exit ${failed.get(key(name, label))})` : "";
        return ` ${(m * 1000).toFixed(0)} ms${exit} | ${(Math.min(...values) * 1000).toFixed(0)} - ${(Math.max(...values) * 1000).toFixed(0)} ms | ${(m / anchor).toFixed(1)}x |`;
      });
      console.log(`| ${name} |${cells.join("")}`);
    }
  } finally {
    await k.dispose();
    dir.remove();
  }
}

await main();
