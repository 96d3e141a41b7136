import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { corruptTablePage, realisticDatabase } from "../support/damaged-databases.js";
import { KINTSUGI_BIN, nodeOptionsOf } from "../support/run-cli.js";
import { tempDir } from "../support/temp-dir.js";

// The real binary's on-demand bundles (check-config, the db commands) run with the V8 code cache the build made under
// the executable's node options (scripts/build-cli.mjs, src/cli/bundle-loader.ts). Under other options V8 rejects the
// cache and the bundle compiles from its source: the command must print and exit the same either way.

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const OPTIONS = nodeOptionsOf(KINTSUGI_BIN);

function run(argv: readonly string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, argv, { cwd, env: { ...process.env, KINTSUGI_TOKEN: "" } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** What became of the cache of the bundle `file` in a node run with `options`. */
async function cacheUse(file: string, options: readonly string[]): Promise<string> {
  const loader = pathToFileURL(join(DIST, "cli", "bundle-loader.js")).href;
  const shared = pathToFileURL(join(DIST, "cli", "cli-error.js")).href;
  const script =
    `const { loadBundle } = await import(${JSON.stringify(loader)});` +
    `console.log(loadBundle(${JSON.stringify(file)}, { "./cli/cli-error.js": await import(${JSON.stringify(shared)}) }).cache);`;
  const res = await run([...options, "--input-type=module", "-e", script]);
  assert.equal(res.code, 0, res.stderr);
  return res.stdout.trim();
}

describe("the on-demand bundles' code cache in the real binary", () => {
  const bundles = readdirSync(DIST).filter((f) => /^cli-.*\.cjs$/.test(f));

  it("there is a bundle for check-config, db check and the other db commands", () => {
    assert.deepEqual(bundles.sort(), ["cli-check-config.cjs", "cli-db-backup.cjs", "cli-db-check.cjs", "cli-db-copy.cjs"]);
  });

  for (const bundle of bundles) {
    it(`${bundle}: V8 takes its cache under the executable's node options, and rejects it without them`, async () => {
      assert.equal(await cacheUse(join(DIST, bundle), OPTIONS), "accepted");
      assert.equal(await cacheUse(join(DIST, bundle), []), "rejected");
    });
  }

  const cases: Array<{ name: string; args: (dir: string) => Promise<string[]>; code: number; output: RegExp }> = [
    {
      name: "check-config of a valid file",
      args: async (dir) => (
        writeFileSync(join(dir, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir, "k.db"))}\n`),
        ["check-config", "k.yaml"]
      ),
      code: 0,
      output: /^k\.yaml: ok\n$/,
    },
    {
      name: "check-config of a file with two problems",
      args: async (dir) => (writeFileSync(join(dir, "k.yaml"), "listen: 5\nfoo: 1\n"), ["check-config", "k.yaml"]),
      code: 1,
      output: /^kintsugi: k\.yaml: listen: must be a string, got 5 .*\nkintsugi: k\.yaml: foo: unknown key\n$/,
    },
    {
      // The kubeconfig check is imported on demand, inside the bundle: a copy of it outside threw a ConfigError the
      // bundle's did not know, and only the kubeconfig's problem was printed.
      name: "check-config of a file with an unknown key and a kubeconfig that is not there: both problems",
      args: async (dir) => (
        writeFileSync(
          join(dir, "k.yaml"),
          `listen: "127.0.0.1:0"\ndatabase: k.db\nfoo: 1\nkubernetes:\n  kubeconfig: ${JSON.stringify(join(dir, "kubeconfig"))}\n`,
        ),
        ["check-config", "k.yaml"]
      ),
      code: 1,
      output: /^kintsugi: k\.yaml: foo: unknown key\nkintsugi: k\.yaml: kubernetes\.kubeconfig: .*kubeconfig: cannot read the kubeconfig: no such file\n$/,
    },
    {
      name: "check-config of a file naming a kubeconfig that is not there (the bundle's import() of the kubeconfig check)",
      args: async (dir) => (
        writeFileSync(join(dir, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: k.db\nkubernetes:\n  kubeconfig: ${JSON.stringify(join(dir, "kubeconfig"))}\n`),
        ["check-config", "k.yaml"]
      ),
      code: 1,
      output: /^kintsugi: .*kubeconfig: cannot read the kubeconfig: no such file\n$/,
    },
    {
      name: "db check of a database kintsugi wrote",
      args: async (dir) => (await realisticDatabase(join(dir, "k.db")), ["db", "check", "k.db"]),
      code: 0,
      output: /: ok\n {2}integrity ok, foreign keys ok\n[^]* {2}sha256 [0-9a-f]{64}\n$/,
    },
    {
      name: "db check of a damaged database (an operator's error: one line, no stack)",
      args: async (dir) => (await realisticDatabase(join(dir, "k.db")), corruptTablePage(join(dir, "k.db")), ["db", "check", "k.db"]),
      code: 1,
      output: /^kintsugi: database .*k\.db fails its check: SQLite's integrity check/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the same with the cache taken and rejected`, async () => {
      const dir = tempDir("kintsugi-code-cache-");
      try {
        const args = await c.args(dir.path);
        const taken = await run([...OPTIONS, KINTSUGI_BIN, ...args], dir.path);
        const rejected = await run([KINTSUGI_BIN, ...args], dir.path);
        assert.equal(taken.code, c.code, taken.stderr);
        assert.match(c.code === 0 ? taken.stdout : taken.stderr, c.output);
        assert.deepEqual(rejected, taken);
      } finally {
        dir.remove();
      }
    });
  }
});
