import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { build, type BuildOptions } from "esbuild";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { realisticDatabase } from "../support/damaged-databases.js";
import { moduleRecorder } from "../support/module-recorder.js";
import { KINTSUGI_BIN, nodeOptionsOf } from "../support/run-cli.js";
import { tempDir } from "../support/temp-dir.js";

// What the real `kintsugi` (the built binary) loads for an operator command, recorded by a module hook: its bundled
// front and nothing of the server (the config's schemas, the store, graphql, SQLite), so that a command costs little
// more CPU than node's own start (bench:cli). What a command needs on demand (serve, db, alerts, watch) loads then.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The files an operator command may load: the executable, the bundle, and the error class the bundle shares. */
const FRONT = ["bin/kintsugi.js", "dist/kintsugi-cli.js", "dist/cli/cli-error.js"];

/** The files of the checkout the command loaded (node's own modules left out), relative to the checkout. */
function loadedBy(args: readonly string[], url: string): Promise<string[]> {
  const dir = tempDir("kintsugi-cli-modules-");
  const recorder = moduleRecorder(dir.path);
  return new Promise<string[]>((resolve, reject) =>
    execFile(process.execPath, [...nodeOptionsOf(KINTSUGI_BIN), KINTSUGI_BIN, "--server", url, ...args], { env: recorder.env }, (err, _stdout, stderr) => {
      if (err) return reject(new Error(`kintsugi ${args.join(" ")} failed: ${stderr}`));
      const files = recorder
        .loaded()
        .filter((l) => l.startsWith("file:") || l.startsWith("/"))
        .map((l) => relative(ROOT, l.startsWith("file:") ? fileURLToPath(l) : l))
        .filter((p) => !p.startsWith("..") && !p.startsWith(relative(ROOT, dir.path)));
      resolve([...new Set(files)].sort());
    }),
  ).finally(() => dir.remove());
}

/**
 * What the bundle may hold: the CLI's own modules, the pure rules and the auth helpers they print with, the progress
 * counter the db commands print with and the bounded read of the files commands name (node's modules only), and
 * commander. Not the server's parts (config, store, graphql, wiring, runner) or any other library.
 */
const BUNDLED = /^(dist\/(cli|domain|auth)\/|dist\/version\.js$|dist\/support\/(progress|bounded-read)\.js$|node_modules\/commander\/)/;

describe("what an operator command of the real binary loads", () => {
  it("the bundled front holds the CLI, the rules it prints with and commander, nothing of the server", async () => {
    // The build's own options (a plain .mjs script, imported by URL).
    const { CLI_BUILD } = (await import(new URL("../../scripts/build-cli.mjs", import.meta.url).href)) as { CLI_BUILD: BuildOptions };
    const { metafile } = await build({ ...CLI_BUILD, write: false, metafile: true, logLevel: "silent" });
    const inputs = Object.keys(metafile?.inputs ?? {});
    assert.ok(inputs.includes("dist/cli/main.js"), inputs.join(", "));
    assert.deepEqual(
      inputs.filter((input) => !BUNDLED.test(input)),
      [],
    );
  });

  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi();
  });
  after(async () => {
    await k.dispose();
  });

  for (const args of [["--help"], ["repair-queue", "is-enabled"], ["constraints", "show"]]) {
    it(`kintsugi ${args.join(" ")}: its bundled front only`, async () => {
      assert.deepEqual(
        (await loadedBy(args, k.url)).filter((p) => !FRONT.includes(p)),
        [],
      );
    });
  }

  // An on-demand bundle is an ES module that runs the bundle's CommonJS body (read as a file, with its code cache)
  // through the loader (scripts/build-cli.mjs).
  it("kintsugi check-config FILE: the front, then the config's checks in one bundle of their own", async () => {
    const dir = tempDir("kintsugi-cli-modules-config-");
    try {
      const file = join(dir.path, "kintsugi.yaml");
      writeFileSync(file, `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir.path, "k.db"))}\n`);
      assert.deepEqual(
        (await loadedBy(["check-config", file], k.url)).filter((p) => !FRONT.includes(p)),
        ["dist/cli-check-config.js", "dist/cli/bundle-loader.js"],
      );
    } finally {
      dir.remove();
    }
  });

  it("kintsugi db check FILE: the front, then the SQLite check in a bundle of its own, not the config's", async () => {
    const dir = tempDir("kintsugi-cli-modules-db-");
    try {
      const file = join(dir.path, "kintsugi.db");
      await realisticDatabase(file);
      const loaded = (await loadedBy(["db", "check", file], k.url)).filter((p) => !FRONT.includes(p));
      assert.deepEqual(
        loaded.filter((p) => !p.startsWith("node_modules/")),
        ["dist/cli-db-check.js", "dist/cli/bundle-loader.js"],
      );
      // SQLite's native module, which the bundle leaves to node, and what it loads it with.
      assert.deepEqual([...new Set(loaded.filter((p) => p.startsWith("node_modules/")).map((p) => p.split("/")[1]))].sort(), [
        "better-sqlite3",
        "bindings",
        "file-uri-to-path",
      ]);
    } finally {
      dir.remove();
    }
  });
});
