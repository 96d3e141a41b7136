// `npm test`: the checks (scripts/run-checks.mjs) and the tests (scripts/run-tests.mjs) side by side. The checks
// (type check with lint, format, generated code) use about 100 s of CPU in one or two single-threaded processes,
// while most test files wait on servers, child processes and timers: one after the other they cost their sum in wall
// time on this 2-core machine, side by side about the tests' time alone. The build comes first, when dist/ is not
// already built from this checkout (`npm ci` builds it through `prepare`), since tests run the built binary. The
// checks' output is held and printed when both are done, so that it does not break into the tests' TAP stream; the
// tests' own summary (failed tests, slowest files) comes before it, and the checks' failures, if any, last. Exits
// non-zero when the build, any check or any test fails. Arguments go to run-tests.mjs (a file list runs no checks).
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";

const files = process.argv.slice(2);

/** Runs `args` with node; resolves with its exit code, and its output when `capture`. */
function node(args, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => resolve({ code: signal ? 1 : (code ?? 1), output: Buffer.concat(output).toString() }));
  });
}

if (files.length > 0) process.exit((await node(["scripts/run-tests.mjs", ...files], false)).code);

const build = await node(["scripts/run-checks.mjs", "--build-only"], true);
process.stdout.write(build.output);
if (build.code !== 0) process.exit(build.code);

const [checks, tests] = await Promise.all([node(["scripts/run-checks.mjs", "--no-build"], true), node(["scripts/run-tests.mjs"], false)]);
process.stdout.write(`\n# The checks, run beside the tests\n${checks.output}`);
process.exit(checks.code !== 0 ? checks.code : tests.code);
