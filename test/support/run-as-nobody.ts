import { realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { KINTSUGI_BIN } from "./run-cli.js";

/** The user a test runs kintsugi as when it runs as root, since file modes do not stop root. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

/** The first directory on `path`'s way from / that `nobody` may not pass through (no search permission for others). */
function closedDirectory(path: string): string | undefined {
  const dirs: string[] = [];
  for (let dir = dirname(realpathSync(path)); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === dirname(dir)) break;
  }
  return dirs.find((dir) => {
    const { mode, uid, gid } = statSync(dir);
    if (uid === NOBODY.uid) return (mode & 0o100) === 0;
    if (gid === NOBODY.gid) return (mode & 0o010) === 0;
    return (mode & 0o001) === 0;
  });
}

/**
 * Who a test that needs a file mode to bite should run kintsugi as: `nobody` when this process is root, else this
 * process's own user (undefined). `skip` says why the test cannot run: as root, when the checkout (the binary, its
 * dist/ and node_modules/, or node itself) sits below a directory nobody may not enter, such as root's own home.
 */
export function runAsForFileModes(): { as?: typeof NOBODY; skip?: string } {
  if (process.getuid?.() !== 0) return {};
  const root = dirname(dirname(KINTSUGI_BIN));
  for (const path of [KINTSUGI_BIN, join(root, "dist", "main.js"), join(root, "node_modules", "commander", "package.json"), process.execPath]) {
    const closed = closedDirectory(path);
    if (closed) return { as: NOBODY, skip: `as root this test runs kintsugi as nobody, who cannot enter ${closed} on the way to ${path}` };
  }
  return { as: NOBODY };
}
