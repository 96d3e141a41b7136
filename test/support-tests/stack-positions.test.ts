import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { transform } from "esbuild";
import { stackPositionMapper } from "../../scripts/stack-positions.mjs";
import { tempDir } from "../support/temp-dir.js";

// TypeScript whose line 4 throws; the transpiled JavaScript has other lines (the types and blank lines are gone).
const SOURCE = [
  "interface Shape {",
  "  readonly side: number;",
  "}",
  "export const fail = (s: Shape): never => { throw new Error(`side ${s.side}`); };",
  "",
].join("\n");

/** The transpiled SOURCE, its source map inline (as scripts/build-tests.mjs writes) or in a .map file (build-dist.mjs). */
async function transpiled(dir: string, sourceFile: string, inline: boolean): Promise<{ file: string; line: number; column: number }> {
  const file = join(dir, "out", "shape.js");
  mkdirSync(join(dir, "out"), { recursive: true });
  const result = await transform(SOURCE, { loader: "ts", format: "esm", sourcemap: inline ? "inline" : "external", sourcefile: sourceFile });
  writeFileSync(file, inline ? result.code : `${result.code}//# sourceMappingURL=shape.js.map\n`);
  if (!inline) writeFileSync(`${file}.map`, result.map);
  const lines = result.code.split("\n");
  const line = lines.findIndex((l) => l.includes("throw new Error"));
  return { file, line: line + 1, column: (lines[line] ?? "").indexOf("throw") + 1 };
}

describe("stack positions: a failed test's stack names the TypeScript lines", () => {
  const cases = [
    { name: "a .test-build file, its map inline", inline: true },
    { name: "a dist/ file, its map in a .map file", inline: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir("kintsugi-stack-");
      try {
        writeFileSync(join(dir.path, "shape.ts"), SOURCE);
        const js = await transpiled(dir.path, "../shape.ts", c.inline);
        const stack = `Error: side 3\n    at fail (${js.file}:${js.line}:${js.column})\n    at ${pathToFileURL(js.file).href}:${js.line}:${js.column}`;
        const mapped = stackPositionMapper()(stack);
        const at = `${join(dir.path, "shape.ts")}:4:`;
        assert.equal(mapped.split(at).length - 1, 2, mapped);
        assert.match(mapped, /^Error: side 3\n/);
      } finally {
        dir.remove();
      }
    });
  }

  it("leaves positions no source map covers as they are: node's own, a file without a map, a file that is gone", () => {
    const dir = tempDir("kintsugi-stack-");
    try {
      const plain = join(dir.path, "plain.js");
      writeFileSync(plain, "export const x = 1;\n");
      const stack = [
        "Error: no",
        "    at run (node:internal/test_runner/test:797:9)",
        `    at f (${plain}:1:8)`,
        `    at g (${join(dir.path, "gone.js")}:3:4)`,
      ].join("\n");
      assert.equal(stackPositionMapper()(stack), stack);
    } finally {
      dir.remove();
    }
  });
});
