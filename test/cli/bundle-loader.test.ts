import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { codeCacheFileOf, loadBundle, writeCodeCache, type CodeCacheUse } from "../../src/cli/bundle-loader.js";
import { tempDir } from "../support/temp-dir.js";
import { typescriptEntry, typescriptLoader } from "../support/typescript-child.js";

// The CLI's on-demand bundles run through this loader with V8's code cache (scripts/build-cli.mjs). A bundle must run
// the same whatever became of its cache: none, one V8 rejects (made under other node options), or one of another
// source, which V8 itself would take (it checks only the source's length) and run the old code.

/** A bundle as the build writes one: a CommonJS body using what the wrapper gives it. */
const bundleSource = (answer: number) =>
  [
    `const { sep } = require("node:path");`,
    `const shared = require("./shared.js");`,
    // Set by the top level, which the cache holds compiled (the functions it never ran compile from the source).
    `exports.answer = ${answer};`,
    `exports.sharedIsGiven = (given) => shared === given;`,
    `exports.where = () => [__filename.endsWith(sep + "bundle.cjs"), __kintsugiImportMetaUrl.startsWith("file:")];`,
    `exports.later = () => __kintsugiImport("./later.mjs");`,
    // A module of dist/ bundled in: its import.meta is its own file's, as tsc wrote it beside the bundle.
    `exports.meta = () => { const m = __kintsugiImportMetaOf("graphql/schema.js");`,
    `  return { url: m.url, filename: m.filename, dirname: m.dirname, relative: m.resolve("../x.graphql"), pkg: m.resolve("commander"), once: __kintsugiImportMetaOf("graphql/schema.js") === m }; };`,
    "",
  ].join("\n");

const LOADER = pathToFileURL(typescriptEntry(join(import.meta.dirname, "../../src/cli/bundle-loader.ts"))).href;

/** Writes the cache of `file` in a node run with `options` (other V8 flags than this process: a cache V8 rejects here). */
async function writeCacheUnder(options: readonly string[], file: string): Promise<void> {
  const script = `const { writeCodeCache } = await import(${JSON.stringify(LOADER)}); writeCodeCache(${JSON.stringify(file)}, { "./shared.js": {} });`;
  await promisify(execFile)(process.execPath, [...options, ...typescriptLoader(), "--input-type=module", "-e", script]);
}

describe("loadBundle: a bundle with V8's code cache, and without", () => {
  const cases: Array<{ name: string; cache: CodeCacheUse; prepare: (file: string) => Promise<void> }> = [
    { name: "no cache file", cache: "absent", prepare: async () => undefined },
    {
      name: "a cache made by this node under these flags",
      cache: "accepted",
      prepare: async (file) => void writeCodeCache(file, { "./shared.js": {} }),
    },
    {
      name: "a cache made under other V8 flags",
      cache: "rejected",
      prepare: (file) => writeCacheUnder(["--max-semi-space-size=2", "--stack-size=900"], file),
    },
    {
      name: "a cache of another source of the same length",
      cache: "stale",
      prepare: async (file) => {
        writeFileSync(file, bundleSource(7));
        writeCodeCache(file, { "./shared.js": {} });
        writeFileSync(file, bundleSource(8));
      },
    },
    {
      name: "a cache file cut short",
      cache: "stale",
      prepare: async (file) => writeFileSync(codeCacheFileOf(file), Buffer.alloc(10)),
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the cache is ${c.cache}, and the bundle runs as written`, async () => {
      const dir = tempDir("kintsugi-bundle-loader-");
      try {
        const file = join(dir.path, "bundle.cjs");
        writeFileSync(file, bundleSource(8));
        writeFileSync(join(dir.path, "later.mjs"), "export const loaded = 'later';\n");
        await c.prepare(file);
        const shared = { name: "the front's module" };
        const { exports, cache } = loadBundle(file, { "./shared.js": shared });
        assert.equal(cache, c.cache);
        const bundle = exports as {
          answer: number;
          sharedIsGiven(given: unknown): boolean;
          where(): boolean[];
          later(): Promise<{ loaded: string }>;
          meta(): { url: string; filename: string; dirname: string; relative: string; pkg: string; once: boolean };
        };
        assert.equal(bundle.answer, 8, "the source's code, never a cache's of another source");
        assert.ok(bundle.sharedIsGiven(shared), "a shared module is the one handed in, not a second copy");
        assert.deepEqual(bundle.where(), [true, true]);
        assert.equal((await bundle.later()).loaded, "later", "import() relative to the bundle's file");
        const module = join(dir.path, "graphql", "schema.js");
        const meta = bundle.meta();
        assert.deepEqual(
          { ...meta, pkg: undefined },
          {
            url: pathToFileURL(module).href,
            filename: module,
            dirname: join(dir.path, "graphql"),
            relative: pathToFileURL(join(dir.path, "x.graphql")).href,
            pkg: undefined,
            once: true,
          },
        );
        assert.match(meta.pkg, /^file:\/\/.*\/node_modules\/commander\//, "a package resolves as the loader's import.meta.resolve does");
      } finally {
        dir.remove();
      }
    });
  }

  it("writeCodeCache: the names the bundle exports, for the module that loads it", () => {
    const dir = tempDir("kintsugi-bundle-loader-");
    try {
      const file = join(dir.path, "bundle.cjs");
      writeFileSync(file, bundleSource(8));
      assert.deepEqual(writeCodeCache(file, { "./shared.js": {} }), ["answer", "sharedIsGiven", "where", "later", "meta"]);
    } finally {
      dir.remove();
    }
  });
});
