// Runs every test/**/*.test.ts file with node's built-in test runner through tsx. Node 20's --test does not expand
// globs itself, so the files are listed here. Extra arguments are passed on (e.g. a file list to run only those).
// A full run records every call the tests' fake Kubernetes APIs serve (KINTSUGI_KUBE_CALLS_DIR), then checks the
// shipped RBAC rules against them with test/deploy/rbac.suite-check.ts; the exit code is non-zero when either fails.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

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

const requested = process.argv.slice(2);
const full = requested.length === 0;
const files = full ? testFiles("test").sort() : requested;
const callsDir = full ? mkdtempSync(join(tmpdir(), "kintsugi-kube-calls-")) : null;
const env = callsDir ? { ...process.env, KINTSUGI_KUBE_CALLS_DIR: callsDir } : process.env;

function runTests(list) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...list], { stdio: "inherit", env });
    child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

let code = await runTests(files);
if (callsDir) {
  if (code === 0) code = await runTests(["test/deploy/rbac.suite-check.ts"]);
  else console.log("SKIPPING the RBAC check of the suite's Kubernetes calls: the tests failed, so their calls are incomplete");
  rmSync(callsDir, { recursive: true, force: true });
}
process.exit(code);
