import { accessSync, constants, statSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ConfigProblem } from "./load-config.js";

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    // ENOTDIR: a file stands where a directory of the path should; the walk up finds it.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

/**
 * Refuses a SQLite `database` path that can never be opened, told without opening it (a running kintsugi holds the
 * file): a directory where the file should be, a file where one of its directories should be, or a new file whose
 * nearest existing directory this user may not write (the directories and the file are created on first start). A
 * file that exists is left to the start: its lock, schema and permissions are the store's to judge (a read-only one
 * is served, with /health saying so).
 */
export function databasePathProblems(database: string): ConfigProblem[] {
  const file = resolve(database);
  const refuse = (message: string): ConfigProblem[] => [{ path: "database", message: `${database}: ${message}` }];
  try {
    const existing = statOrNull(file);
    if (existing !== null) return existing.isDirectory() ? refuse("is a directory, not a database file") : [];
    let dir = dirname(file);
    for (;;) {
      const stats = statOrNull(dir);
      if (stats !== null) {
        if (!stats.isDirectory()) return refuse(`cannot be created: ${dir} is not a directory`);
        try {
          accessSync(dir, constants.W_OK | constants.X_OK);
          return [];
        } catch {
          return refuse(`cannot be created: this user may not write in ${dir}`);
        }
      }
      const parent = dirname(dir);
      if (parent === dir) return [];
      dir = parent;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(`cannot be reached: ${code === "EACCES" ? "permission denied" : (code ?? "unreadable")}`);
  }
}
