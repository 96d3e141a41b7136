// Idle CPU priority for work that only computes and may wait for CPU nobody else wants: Linux's SCHED_IDLE, through
// util-linux's chrt, whose tasks give way at once to any other task that wakes; nice 19 where chrt is missing. A
// process's children and threads inherit it. scripts/run-tests.mjs runs the simulator's files so, and
// scripts/npm-test.mjs the checks.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { setPriority } from "node:os";
import { delimiter, join } from "node:path";

/** The nice value where chrt is missing: the lowest. */
const IDLE_NICE = 19;

const onPath = (name) => ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter)].some((dir) => dir !== "" && existsSync(join(dir, name)));

/** How the work runs: "SCHED_IDLE" or "nice 19". */
export const IDLE_POLICY = onPath("chrt") ? "SCHED_IDLE" : `nice ${IDLE_NICE}`;

/** `spawn(command, args, options)` at IDLE_POLICY. */
export function spawnIdle(command, args, options) {
  if (IDLE_POLICY === "SCHED_IDLE") return spawn("chrt", ["--idle", "0", command, ...args], options);
  const child = spawn(command, args, options);
  // Set before the child starts processes of its own, which inherit it.
  if (child.pid !== undefined) setPriority(child.pid, IDLE_NICE);
  return child;
}
