// Runs every test/**/*.test.ts file with node's built-in test runner. Node 20's --test does not expand globs itself,
// so the files are listed here. Extra arguments are passed on (e.g. a file list to run only those). It first
// transpiles the TypeScript into .test-build/ (scripts/build-tests.mjs) and runs the .js there, not through tsx, whose
// loader cost every test file's process about 0.5 s of CPU; names and times are the .ts files'. Without node's
// --enable-source-maps (about 0.15 s of CPU more in each process that loads the server): node's own output gives the
// .js lines, and the list of failed tests at the end the .ts lines (scripts/stack-positions.mjs).
// A full run records every call the tests' fake Kubernetes APIs serve (KINTSUGI_KUBE_CALLS_DIR), then checks the
// shipped RBAC rules against them with test/deploy/rbac.suite-check.ts; the exit code is non-zero when either fails.
// At the end it prints each part's time: the slowest files (scripts/test-timing-reporter.mjs records each file's wall
// time), the total, and the time by folder; the whole table goes to test-artifacts/test-times.txt. The tests' TMPDIR
// is a folder of its own in RAM (/dev/shm) where there is one (scripts/test-tmpdir.mjs).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, loadavg, setPriority, tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { TEST_BUILD, buildTests, builtPath } from "./build-tests.mjs";
import { stackPositionMapper } from "./stack-positions.mjs";
import { PROCESS_PER_FILE_ENV, planProcesses, togetherLabel, writeTogetherEntry } from "./test-processes.mjs";
import { testTmpDir } from "./test-tmpdir.mjs";

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return testFiles(path);
    return d.name.endsWith(".test.ts") ? [path] : [];
  });
}

// Tests that need a real server skip themselves where it is missing; say so once, up front, not only per suite.
const etcd = process.env.KINTSUGI_TEST_ETCD ?? "/usr/bin/etcd";
if (!existsSync(etcd)) console.log(`SKIPPING the etcd tests: no etcd at ${etcd} (install Debian's etcd-server, as .ci/run does)`);
if (!existsSync("/usr/bin/chromium")) console.log("SKIPPING the browser tests: no chromium at /usr/bin/chromium (install Debian's chromium, as .ci/run does)");
const promtool = process.env.KINTSUGI_TEST_PROMTOOL ?? "/usr/bin/promtool";
if (!existsSync(promtool)) console.log(`SKIPPING the promtool tests: no promtool at ${promtool} (install Debian's prometheus, as .ci/run does)`);
const onPath = (name) => ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter)].some((dir) => dir !== "" && existsSync(join(dir, name)));
if (!onPath("kubectl"))
  console.log(
    "SKIPPING the kubectl tests: no kubectl on PATH (the kustomize test of deploy/kubernetes, and the two tests that check the test Kubernetes API with kubectl too)",
  );
if (!onPath("systemd-analyze")) console.log("SKIPPING the systemd unit test: no systemd-analyze on PATH (install Debian's systemd, as .ci/run does)");
if (!onPath("ipmi_sim") || !onPath("ipmitool"))
  console.log(
    "SKIPPING the IPMI command tests (the scripts, and a power cycle through kintsugi serve): no ipmi_sim or ipmitool on PATH (install Debian's openipmi and ipmitool, as .ci/run does)",
  );
if (!onPath("curl"))
  console.log(
    "SKIPPING the Redfish command tests (the scripts, and a power cycle through kintsugi serve): no curl on PATH (install Debian's curl, as .ci/run does)",
  );
if (process.getuid?.() !== 0)
  console.log(
    "SKIPPING the fault suite's partitions (test/faults): not root, and network namespaces need root (CI runs as root); its other faults run on 127.0.0.1",
  );
if (!existsSync("/usr/bin/zsh") && !existsSync("/bin/zsh"))
  console.log("SKIPPING the zsh completion runs: no zsh (install Debian's zsh, as .ci/run does); its script is checked only for its structure");

// The slowest files (from the timing report of a full run at load 8-13), longest first, so that none of them is left
// running alone at the end while the other slots idle (node runs the files in this order: see inOrder). The rest
// follow in path order.
const SLOW_FIRST = [
  "test/demo/demo-long-run.test.ts",
  "test/faults/faults.e2e.test.ts",
  "test/faults/etcd-member-cut.e2e.test.ts",
  "test/ha/failover.e2e.test.ts",
  "test/deploy/tarball-install.test.ts",
  "test/docs/runnable-blocks.test.ts",
  "test/adapters/hostile-kube-api.e2e.test.ts",
  "test/deploy/shipped-configs-repair.e2e.test.ts",
  "test/store/conformance/etcd.test.ts",
  "test/ha/inherited-command.e2e.test.ts",
  "test/graphql/replay-worker.e2e.test.ts",
  "test/browser/status-page.test.ts",
  "test/runner/health-checks.e2e.test.ts",
  "test/ha/etcd-unreachable.e2e.test.ts",
  "test/store/kv/convert-sqlite-tables.test.ts",
  "test/browser/status-page-outage.test.ts",
  "test/adapters/kube-node-list-paging.test.ts",
  "test/runner/rules-together.e2e.test.ts",
  "test/cli/binary-smoke.test.ts",
  "test/runner/dependency-outage-log.e2e.test.ts",
  "test/store/conformance/sqlite.test.ts",
  "test/runner/proof-of-repair.e2e.test.ts",
  "test/browser/hostile-page.test.ts",
];

// Three files at a time on two cores, with the simulator's beside them (below). Most of the suite waits on servers,
// child processes and sockets: alone, at two its processes kept about one core busy; at three, 1.67 of the two
// (tests 466 s); at four, 1.78 (424 s). With the simulator's files soaking up the CPU they leave idle, the cores are
// busy either way, and at three the others contend less: the tests took 353.6 s and 588 s of CPU at three, 363.9 s
// and 649 s at four; at four, end-to-end tests that wait on the wall clock failed (the long demo's story in four runs
// of four, a failover's command, a cluster adoption).
const CONCURRENCY = 3;

// The simulator's files compute and wait for nothing (a virtual clock in a worker thread: test/support/simulate-apart.ts),
// about 80 s of CPU. They run beside the others from the start, in a run of their own at idle priority, on what the
// others leave idle while they wait on servers and children: the rest of the suite's files get the cores as if the
// sims were not there, and a sim that is still running at the end has them to itself. Two runs back to back: the
// tests took 415.6 s with the sims among the four, 372.2 s with them beside. Idle priority is Linux's SCHED_IDLE
// (chrt --idle), whose tasks give way at once to any other task that wakes; nice 19 where chrt is missing.
const IDLE_PRIORITY = ["test/sim/regression-seeds.test.ts", "test/sim/sweep.test.ts", "test/sim/generation-sweep.test.ts", "test/sim/determinism.test.ts"];
/** Where chrt is missing, the lowest nice value instead. */
const IDLE_NICE = 19;
const IDLE_POLICY = onPath("chrt") ? "SCHED_IDLE" : `nice ${IDLE_NICE}`;

const requested = process.argv.slice(2);
const full = requested.length === 0;
const all = testFiles("test").sort();
const files = full ? [...SLOW_FIRST.filter((f) => all.includes(f)), ...all.filter((f) => !SLOW_FIRST.includes(f))] : requested;
const built = Date.now();
const transpiled = await buildTests();
console.log(`.test-build: transpiled ${transpiled} files in ${Date.now() - built} ms`);
const callsDir = full ? mkdtempSync(join(tmpdir(), "kintsugi-kube-calls-")) : null;
// The tests' temporary files (SQLite databases, etcd's data, the fake machines' files): scripts/test-tmpdir.mjs.
const { dir: testTmp, why: testTmpWhy } = testTmpDir();
console.log(`the tests' TMPDIR: ${testTmp ?? `the system's (${tmpdir()})`}, ${testTmpWhy}`);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(signal, () => {
    if (testTmp) rmSync(testTmp, { recursive: true, force: true });
    process.exit(1);
  });
const env = {
  ...process.env,
  KINTSUGI_TEST_BUILD: TEST_BUILD,
  ...(callsDir ? { KINTSUGI_KUBE_CALLS_DIR: callsDir } : {}),
  ...(testTmp ? { TMPDIR: testTmp } : {}),
};
const timesDir = mkdtempSync(join(tmpdir(), "kintsugi-test-times-"));

// Files run CONCURRENCY at a time (KINTSUGI_TEST_CONCURRENCY overrides it).
const concurrency = Number(process.env.KINTSUGI_TEST_CONCURRENCY ?? CONCURRENCY);

/**
 * Node 20's `--test` runs the files it is given in the order of their paths, whatever the order of its arguments: so
 * each file is given through a link whose path sorts at its place in `list`, .test-build/.order/N/.test-build/<path>
 * (node loads a main module from its real path; the link's path keeps .test-build/<path> at its end, where
 * test/support/fake-kube-api-calls.ts finds the test file's name). Returns the links, and maps each to its .ts file.
 */
const linked = new Map();
function inOrder(list) {
  // The in-process files of a folder run in one process (scripts/test-processes.mjs).
  const plan = planProcesses(list, (process.env[PROCESS_PER_FILE_ENV] ?? "") !== "");
  const width = String(plan.length).length;
  const counts = new Map();
  return plan.map(({ folder, e2e = false, files }, i) => {
    let target = builtPath(files[0]);
    let label = relative(process.cwd(), files[0]);
    if (folder !== undefined) {
      const key = `${folder}${e2e ? " e2e" : ""}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      target = writeTogetherEntry(folder, n, files, e2e);
      label = togetherLabel(folder, n, files.length, e2e);
    }
    const link = join(TEST_BUILD, ".order", String(i).padStart(width, "0"), ".test-build", relative(TEST_BUILD, target));
    mkdirSync(dirname(link), { recursive: true });
    rmSync(link, { force: true });
    symlinkSync(target, link);
    // node names a file's test by the link, and a test defined in it by where the link leads.
    linked.set(link, label).set(target, label);
    return link;
  });
}

/**
 * Runs the linked files `links` with node's `--test`, `parallel` at a time, and resolves to its exit code: node's
 * default reporter (spec on a terminal, TAP otherwise) to stdout, or to the file `output` (printed later, so that two
 * runs' reports do not interleave), and the timing reporter to timesDir/`timesFile`; `idle`: at IDLE_POLICY.
 */
function runLinked(links, timesFile, { parallel = concurrency, output = null, idle = false } = {}) {
  const reporters = ["--test-reporter", process.stdout.isTTY ? "spec" : "tap", "--test-reporter-destination", output ?? "stdout"];
  reporters.push("--test-reporter", "./scripts/test-timing-reporter.mjs", "--test-reporter-destination", join(timesDir, timesFile));
  return new Promise((resolve) => {
    const argv = [process.execPath, "--test", `--test-concurrency=${parallel}`, ...reporters, ...links];
    // The files' processes inherit the policy, as their threads and children do.
    const command = idle && IDLE_POLICY === "SCHED_IDLE" ? ["chrt", "--idle", "0", ...argv] : argv;
    const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
    // Set before node starts the files' processes.
    if (idle && command === argv && child.pid !== undefined) setPriority(child.pid, IDLE_NICE);
    child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

const runTests = (list, timesFile) => runLinked(inOrder(list), timesFile);

/** Said in the time report when some files ran at IDLE_POLICY. */
let idleNote = "";

/**
 * Runs `list`, its IDLE_PRIORITY files in a run of their own at IDLE_POLICY beside the others; the idle run's
 * report is printed after the other's. Resolves to the worse exit code.
 */
async function runAll(list) {
  const idle = list.filter((f) => IDLE_PRIORITY.includes(f));
  const rest = list.filter((f) => !IDLE_PRIORITY.includes(f));
  if (idle.length === 0 || rest.length === 0) return runTests(list, "files.json");
  // One plan for both, so that their links in .test-build/.order do not collide.
  const links = inOrder([...rest, ...idle]);
  const idleLinks = links.filter((l) => IDLE_PRIORITY.includes(sourceOf(l)));
  const idleOutput = join(timesDir, "idle-report.txt");
  idleNote = `, and the simulator's ${idleLinks.length} beside them at ${IDLE_POLICY}`;
  const idleRun = runLinked(idleLinks, "idle.json", { parallel: idleLinks.length, output: idleOutput, idle: true });
  const codes = [
    await runLinked(
      links.filter((l) => !idleLinks.includes(l)),
      "files.json",
    ),
  ];
  codes.push(await idleRun);
  console.log(`\n# The simulator's files, run beside the others at ${IDLE_POLICY}: ${idle.join(", ")}`);
  process.stdout.write(readFileSync(idleOutput, "utf8"));
  return Math.max(...codes);
}

/** test/x.test.ts for .test-build/test/x.test.js, or for its link in .test-build/.order. */
const sourceOf = (file) => linked.get(file) ?? relative(TEST_BUILD, file).replace(/\.js$/, ".ts");

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Prints every failed test, last of all but the times, so that a log that keeps only its end still names them; their
 * stacks name the .ts lines.
 */
function reportFailures(failures) {
  if (failures.length === 0) return;
  const lines = ["", `# Failed tests: ${failures.length}`];
  const inSource = stackPositionMapper();
  for (const { file, name, error } of failures) {
    const path = file.replace(/^file:\/\//, "");
    const where = path.includes(".test-build") ? sourceOf(path) : relative(process.cwd(), path);
    const kept = inSource(error)
      .split("\n")
      .filter((l) => !/^\s+at .*(node:internal|node:async_hooks)/.test(l));
    lines.push(`not ok: ${where} > ${name}`, ...kept.map((l) => `    ${l}`));
  }
  console.log(lines.join("\n"));
}

/** Prints where the time went: the slowest files, the total, the time by folder; the whole table to a file. */
function reportTimes(wallMs) {
  const times = new Map();
  const failures = [];
  for (const name of readdirSync(timesDir).filter((n) => n.endsWith(".json"))) {
    const text = readFileSync(join(timesDir, name), "utf8").trim();
    if (text === "") continue;
    const report = JSON.parse(text);
    // A file of a process of several is named by its path, and its process by the process's label.
    for (const [file, t] of Object.entries(report.files)) times.set(t.in ? file : sourceOf(file), t.in ? { ...t, in: sourceOf(t.in) } : t);
    failures.push(...report.failures);
  }
  reportFailures(failures);
  if (times.size === 0) return;
  const rows = [...times].sort((a, b) => b[1].ms - a[1].ms);
  const processes = rows.filter(([, t]) => !t.in);
  const sum = processes.reduce((s, [, t]) => s + t.ms, 0);
  const folders = new Map();
  for (const [file, t] of processes) {
    const folder = file.split("/").slice(0, 2).join("/");
    folders.set(folder, (folders.get(folder) ?? 0) + t.ms);
  }
  const line = ([file, t]) => `${seconds(t.ms).padStart(8)}  ${file}${t.failed ? "  (failed)" : ""}${t.in ? `  (in ${t.in})` : ""}`;
  const files = rows.length - processes.filter(([file]) => !file.endsWith(".ts")).length;
  const head = [
    `test files: ${files} in ${processes.length} processes, wall ${seconds(wallMs)}, sum of the processes' wall times ${seconds(sum)} (${concurrency} at a time${idleNote}); ` +
      `${cpus().length} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} at the end`,
  ];
  const byFolder = `by folder: ${[...folders]
    .sort((a, b) => b[1] - a[1])
    .map(([f, ms]) => `${f} ${seconds(ms)}`)
    .join(", ")}`;
  console.log(["", "# Slowest test processes", ...head, ...processes.slice(0, 20).map(line), byFolder].join("\n"));
  mkdirSync("test-artifacts", { recursive: true });
  writeFileSync(join("test-artifacts", "test-times.txt"), [...head, byFolder, ...rows.map(line), ""].join("\n"));
  console.log("(every file's time: test-artifacts/test-times.txt)");
}

const started = Date.now();
let code = await runAll(files);
if (callsDir) {
  if (code === 0) code = await runTests(["test/deploy/rbac.suite-check.ts"], "rbac.json");
  else console.log("SKIPPING the RBAC check of the suite's Kubernetes calls: the tests failed, so their calls are incomplete");
  rmSync(callsDir, { recursive: true, force: true });
}
reportTimes(Date.now() - started);
rmSync(timesDir, { recursive: true, force: true });
if (testTmp) rmSync(testTmp, { recursive: true, force: true });
process.exit(code);
