// Runs every test/**/*.test.ts file with node's built-in test runner through tsx. Node 20's --test does not expand
// globs itself, so the files are listed here. Extra arguments are passed on (e.g. a file list to run only those).
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
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
const onPath = (name) => ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter)].some((dir) => dir !== "" && existsSync(join(dir, name)));
if (!onPath("kubectl")) console.log("SKIPPING the kubectl tests: no kubectl on PATH (the two tests that check the test Kubernetes API with kubectl too)");
if (!existsSync("/usr/bin/zsh") && !existsSync("/bin/zsh")) console.log("SKIPPING the zsh completion runs: no zsh (install Debian's zsh); its script is checked only for its structure");

const requested = process.argv.slice(2);
const files = requested.length > 0 ? requested : testFiles("test").sort();
const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
