// The checks `npm test` runs before the tests: formatting, lint, build, type check, generated code. Each is one
// single-threaded process and none reads what another writes, so they run two at a time (the longest, the type check
// with the lint, first); each one's output is printed as a block when it ends, and a table of their times at the end.
// The build runs only when dist/ is not already built from this checkout (`npm ci` builds it through `prepare`;
// scripts/build-stamp.mjs knows). Exits non-zero when any check fails, after all have run.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";

// `npm run typecheck` and `npm run lint` (no cache) run as one process over one TypeScript program
// (scripts/typecheck-and-lint.mjs): apart, the lint's type information built and checked the program a second time.
const CHECKS = [
  ["typecheck and lint", "node scripts/typecheck-and-lint.mjs"],
  ["format:check", "npm run --silent format:check"],
  ["build", "npm run --silent prepare"],
  ["codegen:check", "npm run --silent codegen:check"],
];
const PARALLEL = 2;

function run([name, command]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      const ms = Date.now() - started;
      const ok = code === 0 && signal === null;
      const text = Buffer.concat(output).toString().trimEnd();
      console.log(`\n> ${name}: ${ok ? "ok" : `FAILED (${signal ?? `exit ${code}`})`} in ${(ms / 1000).toFixed(1)} s${text === "" ? "" : `\n${text}`}`);
      resolve({ name, ms, ok });
    });
  });
}

const started = Date.now();
const queue = [...CHECKS];
const results = [];
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.push(await run(next));
  }),
);
const wall = ((Date.now() - started) / 1000).toFixed(1);
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(" ");
console.log(`\n# Checks: ${wall} s (${PARALLEL} at a time; ${cpus().length} CPUs, load average ${load} at the end)`);
for (const r of results) console.log(`${(r.ms / 1000).toFixed(1).padStart(8)} s  ${r.name}${r.ok ? "" : "  FAILED"}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
