// Where the tests of a run of scripts/run-tests.mjs keep their temporary files (their TMPDIR): a folder of the run's
// own in RAM where there is room for one. Every SQLite commit and every etcd write syncs to disk, and on this 2-core
// machine's disk (load 15-20) the SQLite conformance file took 55-61 s against 13-27 s in RAM, with a third more CPU.
// The folder is open to every user as /tmp is (tests run kintsugi as nobody); the run removes it at the end.
import { chmodSync, mkdtempSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";

/** Names another parent folder for the tests' temporary files (any size). */
export const TEST_TMPDIR_ENV = "KINTSUGI_TEST_TMPDIR";

/** The RAM folder tried when TEST_TMPDIR_ENV is unset. */
export const RAM_PARENT = "/dev/shm";

/**
 * The suite's temporary files peak at a few hundred megabytes (etcd members, SQLite files, the tarball install): a
 * smaller /dev/shm (a container's default is 64 MB) would fail tests for want of space, so the disk serves then.
 */
export const RAM_TMP_MIN_BYTES = 2 * 1024 ** 3;

/** Errors that mean the parent cannot hold the tests' folder; any other is a bug and is thrown. */
const UNUSABLE = new Set(["ENOENT", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENOSPC"]);

/**
 * A new folder for the tests' temporary files, under `chosen` when given, else under `ram` when it is a folder with at
 * least `minBytes` free; or null, with why, when the system's temporary folder serves instead.
 */
export function testTmpDir({ chosen = process.env[TEST_TMPDIR_ENV], ram = RAM_PARENT, minBytes = RAM_TMP_MIN_BYTES } = {}) {
  const parent = chosen ?? ram;
  try {
    if (!statSync(parent).isDirectory()) return { dir: null, why: `${parent} is not a folder` };
    if (chosen === undefined) {
      const { bavail, bsize } = statfsSync(parent);
      const free = bavail * bsize;
      if (free < minBytes) return { dir: null, why: `${parent} has ${mib(free)} free, less than ${mib(minBytes)}` };
    }
    const dir = mkdtempSync(join(parent, "kintsugi-tests-"));
    chmodSync(dir, 0o1777);
    return { dir, why: chosen === undefined ? "in RAM" : `under ${TEST_TMPDIR_ENV}` };
  } catch (err) {
    if (!UNUSABLE.has(err?.code)) throw err;
    return { dir: null, why: `${parent}: ${err.code}` };
  }
}

const mib = (bytes) => `${Math.floor(bytes / 1024 ** 2)} MiB`;
