// `prepare` builds only when the checkout changed: npm runs it after `npm ci` and again when `npx kintsugi` links the
// checkout into its cache, where a second full build only delayed the first command by half a minute or more.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const STAMP_SCRIPT = join(REPO, "scripts", "build-stamp.mjs");
const OUTPUTS = [
  "dist/kintsugi-cli.js",
  "dist/cli-check-config.js",
  "dist/cli-db-copy.js",
  "dist/cli-db-backup.js",
  "dist/cli-db-check.js",
  "dist/cli-check-config.cjs",
  "dist/cli-db-copy.cjs",
  "dist/cli-db-backup.cjs",
  "dist/cli-db-check.cjs",
  "dist/cli/main.js",
  "dist/main.js",
  "dist/adapters/kube-client.js",
  "dist/graphiql/graphiql.js",
  "dist/status/status.js",
];

/** A checkout in miniature: the stamp script, a source file, the lockfile, and what a build leaves. */
function checkout(root: string): void {
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  mkdirSync(join(root, "scripts"));
  copyFileSync(STAMP_SCRIPT, join(root, "scripts", "build-stamp.mjs"));
  put("src/main.ts", "export {};\n");
  put("scripts/status-page/main.ts", "export {};\n");
  put("package-lock.json", "{}\n");
  for (const output of OUTPUTS) put(output, "built\n");
}

const stamp = async (root: string, command: string) => {
  try {
    await run(process.execPath, [join(root, "scripts", "build-stamp.mjs"), command]);
    return 0;
  } catch (err) {
    return (err as { code: number }).code;
  }
};

describe("the build stamp: prepare skips a build of a checkout built as it is", () => {
  it("package.json: prepare asks the stamp first; the build clears it first and writes it last", () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.equal(scripts["prepare"], "node scripts/build-stamp.mjs fresh || npm run build");
    assert.match(scripts["build"] ?? "", /^node scripts\/build-stamp\.mjs clear && .* && node scripts\/build-stamp\.mjs write$/);
  });

  it("fresh only after write, and until a source, a page, the lockfile or an output changes", async () => {
    const dir = tempDir("kintsugi-stamp-");
    try {
      const root = dir.path;
      checkout(root);
      const fresh = () => stamp(root, "fresh");
      assert.equal(await fresh(), 1, "never built: not fresh");
      assert.equal(await stamp(root, "write"), 0);
      assert.equal(await fresh(), 0, "built as it is");
      const changes: Array<[string, () => void, () => void]> = [
        ["a source", () => writeFileSync(join(root, "src/main.ts"), "export const x = 1;\n"), () => writeFileSync(join(root, "src/main.ts"), "export {};\n")],
        ["a new source file", () => writeFileSync(join(root, "src/new.ts"), ""), () => rmSync(join(root, "src/new.ts"))],
        [
          "the status page",
          () => writeFileSync(join(root, "scripts/status-page/main.ts"), "//\n"),
          () => writeFileSync(join(root, "scripts/status-page/main.ts"), "export {};\n"),
        ],
        ["the lockfile", () => writeFileSync(join(root, "package-lock.json"), "{ }\n"), () => writeFileSync(join(root, "package-lock.json"), "{}\n")],
        [
          "an output removed",
          () => rmSync(join(root, "dist/adapters/kube-client.js")),
          () => writeFileSync(join(root, "dist/adapters/kube-client.js"), "built\n"),
        ],
      ];
      for (const [what, change, undo] of changes) {
        change();
        assert.equal(await fresh(), 1, `${what} changed: build again`);
        undo();
        assert.equal(await fresh(), 0, `${what} as it was: fresh again`);
      }
      assert.equal(await stamp(root, "clear"), 0);
      assert.equal(await fresh(), 1, "a build that starts clears the stamp: one that fails leaves none");
    } finally {
      dir.remove();
    }
  });
});
