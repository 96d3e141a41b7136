import { existsSync, readFileSync } from "node:fs";
import { until } from "./until.js";

/** Alive and not a zombie (an orphan waits for its reaper a moment). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(") ") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** The pid a command wrote into `file` (a line), once it has. */
export const pidIn = (file: string): Promise<number> =>
  until(
    `a pid in ${file}`,
    () => (existsSync(file) ? readFileSync(file, "utf8") : ""),
    (t) => t.endsWith("\n"),
  ).then(Number);
