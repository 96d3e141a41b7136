import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileTooLargeError, readFileBounded, readTextBounded } from "../../src/support/bounded-read.js";
import { tempDir } from "../support/temp-dir.js";

// A file a config or a command names (a PEM file, a tokens file, a template) is read with a bound: a wrong path to a
// device that never ends, or a huge file, is refused with the bound named instead of filling memory.
describe("readFileBounded", () => {
  const dir = tempDir();
  after(() => dir.remove());
  const file = (name: string, bytes: number) => {
    const path = join(dir.path, name);
    writeFileSync(path, Buffer.alloc(bytes, 0x61));
    return path;
  };

  const cases: ReadonlyArray<{ name: string; path: () => string; max: number; read?: number; refused?: RegExp | typeof FileTooLargeError }> = [
    { name: "a small file, whole", path: () => file("small", 10), max: 100, read: 10 },
    { name: "an empty file", path: () => file("empty", 0), max: 100, read: 0 },
    { name: "a file of exactly the bound", path: () => file("exact", 100_000), max: 100_000, read: 100_000 },
    { name: "a file one byte past the bound", path: () => file("over", 100_001), max: 100_000, refused: FileTooLargeError },
    { name: "a device that never ends (/dev/zero)", path: () => "/dev/zero", max: 1_000_000, refused: FileTooLargeError },
    { name: "a device that is empty (/dev/null)", path: () => "/dev/null", max: 100, read: 0 },
    { name: "a missing file: node's ENOENT", path: () => join(dir.path, "missing"), max: 100, refused: /ENOENT/ },
    {
      name: "a directory: EISDIR",
      path: () => {
        mkdirSync(join(dir.path, "folder"), { recursive: true });
        return join(dir.path, "folder");
      },
      max: 100,
      refused: /EISDIR/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.refused !== undefined) {
        assert.throws(() => readFileBounded(c.path(), c.max), c.refused);
        return;
      }
      assert.equal(readFileBounded(c.path(), c.max).length, c.read);
    });
  }

  it("names the bound in its message, with the code EFBIG", () => {
    const err = (() => {
      try {
        readFileBounded("/dev/zero", 4096);
      } catch (e) {
        return e as FileTooLargeError;
      }
      return null;
    })();
    assert.ok(err instanceof FileTooLargeError);
    assert.deepEqual([err.message, err.code, err.maxBytes], ["larger than 4096 bytes", "EFBIG", 4096]);
  });

  it("reads text as UTF-8", () => {
    const path = join(dir.path, "text");
    writeFileSync(path, "kintsugi 金継ぎ\n");
    assert.equal(readTextBounded(path), "kintsugi 金継ぎ\n");
  });
});
