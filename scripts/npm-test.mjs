// `npm test`: the build when dist/ is not built from this checkout (the tests run the built binary), then the tests
// (scripts/run-tests.mjs) with the checks (scripts/run-checks.mjs: formatting, the type check and lint, generated
// code) beside them at idle priority (scripts/idle-priority.mjs). The checks only compute, about 95 s of CPU, and the
// tests leave CPU idle while they wait on servers and children: one after the other, the checks took 45-60 s of the
// run's wall time before the first test started. The checks' report is printed after the tests', and the run ends
// with one line for each. Exits non-zero when either fails.
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IDLE_POLICY, spawnIdle } from "./idle-priority.mjs";

/** Resolves to the exit code of a child (1 when a signal ended it). */
const exitOf = (child) => new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ? 1 : (code ?? 1))));

const build = await exitOf(spawn("npm", ["run", "--silent", "prepare"], { stdio: "inherit" }));
if (build !== 0) {
  console.log("\nnpm test: the build failed; no check or test ran");
  process.exit(build);
}

const dir = mkdtempSync(join(tmpdir(), "kintsugi-checks-"));
const report = join(dir, "checks.txt");
const out = openSync(report, "w");
const checks = exitOf(spawnIdle(process.execPath, ["scripts/run-checks.mjs", "--no-build"], { stdio: ["ignore", out, out] }));
const tests = await exitOf(spawn(process.execPath, ["scripts/run-tests.mjs"], { stdio: "inherit" }));
const checked = await checks;
console.log(`\n# The checks, run beside the tests at ${IDLE_POLICY}:`);
process.stdout.write(readFileSync(report, "utf8"));
rmSync(dir, { recursive: true, force: true });
console.log(`\nnpm test: checks ${checked === 0 ? "passed" : "FAILED"}, tests ${tests === 0 ? "passed" : "FAILED"}`);
process.exit(Math.max(checked, tests));
