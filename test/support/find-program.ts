import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The path of the executable `name` (/usr/bin first, then PATH), or null when there is none: the tests that need a
 * program that may be missing (kubectl, systemd-analyze) are skipped then.
 */
export function findProgram(name: string): string | null {
  for (const dir of ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter)]) {
    if (dir === "") continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return null;
}
