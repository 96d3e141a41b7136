import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { KINTSUGI_BIN, nodeOptionsOf } from "../support/run-cli.js";

const run = promisify(execFile);

describe("how the kintsugi executable starts node", () => {
  it("names node and its memory options on its first line", () => {
    assert.deepEqual(nodeOptionsOf(KINTSUGI_BIN), ["--max-semi-space-size=8", "--expose-gc"]);
  });

  it("runs when executed as an installed kintsugi is (through its first line: env -S, node on PATH)", async () => {
    const { stdout } = await run(KINTSUGI_BIN, ["--version"]);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it("refuses a first line it cannot read, naming it", () => {
    assert.throws(() => nodeOptionsOf(new URL(import.meta.url).pathname), /is not a "#!\/usr\/bin\/env -S node \[options\]" line: import assert/);
  });
});
