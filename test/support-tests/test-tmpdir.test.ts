import assert from "node:assert/strict";
import { statfsSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { RAM_PARENT, RAM_TMP_MIN_BYTES, TEST_TMPDIR_ENV, testTmpDir } from "../../scripts/test-tmpdir.mjs";
import { tempDir } from "../support/temp-dir.js";

// Where a run of scripts/run-tests.mjs puts the tests' temporary files. A constant read before its declaration once
// made every run fall back to the disk without a word (the error was taken for an unusable folder).
describe("testTmpDir", () => {
  const cases: ReadonlyArray<{
    name: string;
    options: (parent: string) => { chosen?: string; ram?: string; minBytes?: number };
    under: boolean;
    why: RegExp;
  }> = [
    {
      name: "a parent the environment names, whatever its free space",
      options: (p) => ({ chosen: p, minBytes: Number.MAX_SAFE_INTEGER }),
      under: true,
      why: /^under KINTSUGI_TEST_TMPDIR$/,
    },
    { name: "the RAM folder with room enough", options: (p) => ({ chosen: undefined, ram: p, minBytes: 0 }), under: true, why: /^in RAM$/ },
    {
      name: "not the RAM folder with too little room",
      options: (p) => ({ chosen: undefined, ram: p, minBytes: Number.MAX_SAFE_INTEGER }),
      under: false,
      why: / has \d+ MiB free, less than \d+ MiB$/,
    },
    { name: "not a missing folder", options: (p) => ({ chosen: join(p, "missing") }), under: false, why: /missing: ENOENT$/ },
    { name: "not a file", options: (p) => ({ chosen: join(p, "file") }), under: false, why: /file is not a folder$/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parent = tempDir();
      try {
        writeFileSync(join(parent.path, "file"), "");
        const { dir, why } = testTmpDir(c.options(parent.path));
        assert.match(why, c.why);
        if (!c.under) return assert.equal(dir, null);
        assert.ok(dir !== null && dirname(dir) === parent.path, `${dir} is a new folder in ${parent.path}`);
        assert.equal(statSync(dir).mode & 0o7777, 0o1777, "open to every user, as /tmp is");
      } finally {
        parent.remove();
      }
    });
  }

  it("is where this test's own temporary files go when scripts/run-tests.mjs runs it", (t) => {
    if (process.env["KINTSUGI_TEST_BUILD"] === undefined) return t.skip("run alone, not by scripts/run-tests.mjs");
    const chosen = process.env[TEST_TMPDIR_ENV];
    const { bavail, bsize } = statfsSync(RAM_PARENT);
    const parent = chosen ?? (bavail * bsize >= RAM_TMP_MIN_BYTES ? RAM_PARENT : null);
    if (parent === null) return assert.ok(!tmpdir().startsWith(`${RAM_PARENT}/`), `${tmpdir()} is not in a RAM folder without room`);
    assert.match(tmpdir(), new RegExp(`^${parent}/kintsugi-tests-[^/]+$`));
  });
});
