// What deploy/Dockerfile does, without an image (no container engine here): pack the checkout with npm, install
// the tarball with `npm ci --omit=dev` from its npm-shrinkwrap.json into an empty directory, build better-sqlite3's
// addon, then run `kintsugi serve` from there and use it. Needs the checkout built (`npm test` builds first).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { graphqlData, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
const lock = JSON.parse(readFileSync(join(REPO, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; dev?: boolean; optional?: boolean }>;
};

// The environment of the npm commands: no token of the developer's, no update check.
const { KINTSUGI_TOKEN: _token, ...baseEnv } = process.env;
const npmEnv = { ...baseEnv, npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" };

// deploy/commands, which the example configs name under /usr/local/libexec/kintsugi.
/** The health commands' earlier names, wrappers of the renamed ones (power on is not health). */
const EARLIER_NAMES = new Set(["ipmi-is-healthy", "redfish-is-healthy"]);
const BMC_COMMANDS = ["ipmi-is-healthy", "ipmi-power-cycle", "ipmi-power-is-on", "redfish-is-healthy", "redfish-power-cycle", "redfish-power-on-health-ok"];

const npm = (args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = npmEnv) =>
  run("npm", args, { cwd, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });

/**
 * better-sqlite3's install script (prebuild-install) takes a prebuilt addon from a local directory before it
 * downloads or compiles one: the addon `npm ci` already compiled for the checkout, from the same better-sqlite3
 * version on this machine, is handed over that way. Compiling SQLite again costs about two minutes on two cores.
 */
async function localPrebuilds(dir: string): Promise<string> {
  const addon = join(REPO, "node_modules", "better-sqlite3");
  const { version } = JSON.parse(readFileSync(join(addon, "package.json"), "utf8")) as { version: string };
  const prebuilds = join(dir, "prebuilds");
  mkdirSync(prebuilds);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run("tar", ["-czf", join(prebuilds, name), "-C", addon, "build/Release/better_sqlite3.node"]);
  return prebuilds;
}

describe("the packed tarball, installed as deploy/Dockerfile installs it, serves", () => {
  const dir = tempDir("kintsugi-tarball-");
  const app = join(dir.path, "app");
  let files: string[] = [];
  let server: ServeProcess | null = null;
  let url = "";

  before(async () => {
    // npm pack would run `prepare` (the build) too: the checkout is built already, and rebuilding dist/ under the
    // other tests' feet would race them. So the pack scripts that matter run around a pack without scripts.
    await run(process.execPath, ["scripts/pack-shrinkwrap.mjs"], { cwd: REPO });
    try {
      const { stdout } = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir.path], REPO);
      const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
      files = packed!.files.map((f) => f.path);
      mkdirSync(app);
      await run("tar", ["-xzf", join(dir.path, packed!.filename), "-C", app, "--strip-components=1"]);
    } finally {
      await run(process.execPath, ["scripts/pack-shrinkwrap.mjs", "--remove"], { cwd: REPO });
    }
    await npm(["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline"], app);
    await npm(["rebuild", "better-sqlite3"], app, { ...npmEnv, npm_config_better_sqlite3_local_prebuilds: await localPrebuilds(dir.path) });
  });

  after(async () => {
    if (server) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    dir.remove();
  });

  it("holds what serve needs: the CLI, the built code, the schema, GraphiQL, the lock, the docs (README and docs/) and deploy/", () => {
    const schema = readdirSync(join(REPO, "schema")).map((f) => `schema/${f}`);
    const needed = [
      "package.json",
      "README.md",
      "docs/configuration.md",
      "docs/examples/try-it.yaml",
      "LICENSE",
      "npm-shrinkwrap.json",
      "bin/kintsugi.js",
      "dist/cli/main.js",
      "dist/main.js",
      "dist/graphiql/graphiql.js",
      "dist/graphiql/style.css",
      "dist/status/status.js",
      "dist/status/status.css",
      "deploy/kintsugi.yaml",
      "deploy/systemd/kintsugi.service",
      ...BMC_COMMANDS.map((c) => `deploy/commands/${c}`),
      ...schema,
    ];
    assert.deepEqual(
      needed.filter((f) => !files.includes(f)),
      [],
    );
  });

  it("holds nothing of the checkout's development: no sources, tests, scripts, CI, source maps", () => {
    const stray = files.filter((f) => /^(src|test|scripts|bench|\.ci|node_modules)\//.test(f) || /\.(map|ts)$/.test(f) || f === "package-lock.json");
    assert.deepEqual(stray, []);
  });

  it("left no npm-shrinkwrap.json in the checkout", () => assert.equal(existsSync(join(REPO, "npm-shrinkwrap.json")), false));

  it("installs exactly the tested versions of the dependencies, and nothing only development needs", () => {
    const wrong = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev && !entry.optional)
      .flatMap(([path, entry]) => {
        const installed = join(app, path, "package.json");
        const version = existsSync(installed) ? (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version : "missing";
        return version === entry.version ? [] : [`${path}: ${version}, tested ${entry.version}`];
      });
    assert.deepEqual(wrong, []);
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev)
      .map(([path]) => path);
    assert.ok(devOnly.includes("node_modules/typescript"), "the lock marks what development alone needs");
    assert.deepEqual(
      devOnly.filter((path) => existsSync(join(app, path))),
      [],
    );
  });

  it("installs the BMC commands as the README and deploy/Dockerfile do, where the example configs name them, runnable", async () => {
    // docs/install.md's `install -m 0755 deploy/commands/* /usr/local/libexec/kintsugi/`, into a directory of the test's.
    const libexec = join(dir.path, "libexec", "kintsugi");
    await run("install", ["-d", libexec]);
    await run("install", ["-m", "0755", ...readdirSync(join(app, "deploy", "commands")).map((c) => join(app, "deploy", "commands", c)), libexec]);
    assert.deepEqual(readdirSync(libexec).sort(), [...BMC_COMMANDS].sort());
    const examples =
      readFileSync(join(REPO, "deploy", "kintsugi.yaml"), "utf8") + readFileSync(join(REPO, "deploy", "kubernetes", "sqlite", "kintsugi.yaml"), "utf8");
    for (const name of BMC_COMMANDS) {
      if (EARLIER_NAMES.has(name)) {
        // Kept so that configs naming it keep working; the examples name what it now runs.
        assert.doesNotMatch(examples, new RegExp(`/${name}"`), `the example configs no longer name ${name}`);
      } else {
        assert.match(examples, name.startsWith("ipmi-") ? new RegExp(`"/usr/local/libexec/kintsugi/${name}"`) : /redfish-/, `the example configs name ${name}`);
      }
      // Without the BMC's address (no sabakan), each stops with its own message rather than reaching any machine.
      const { KINTSUGI_BMC_ADDRESS: _bmc, ...env } = baseEnv;
      const failed = await run(join(libexec, name), ["10.0.0.1"], { env }).then(
        () => null,
        (err: { code?: number; stderr?: string }) => err,
      );
      assert.equal(failed?.code, 2, name);
      assert.match(failed?.stderr ?? "", /KINTSUGI_BMC_ADDRESS is not set/, name);
    }
  });

  it("runs: `kintsugi --version`", async () => {
    const { stdout } = await run(process.execPath, [join(app, "bin", "kintsugi.js"), "--version"], { env: baseEnv });
    assert.equal(stdout.trim(), pkg.version);
  });

  it("serves GraphQL on its own SQLite database, /health, and GraphiQL's page and files", async () => {
    const config = join(dir.path, "kintsugi.yaml");
    writeFileSync(config, `listen: "127.0.0.1:0"\ndatabase: ${JSON.stringify(join(dir.path, "state", "kintsugi.db"))}\n`);
    server = serveProcess(["--config", config], dir.path, baseEnv, undefined, join(app, "bin", "kintsugi.js"));
    url = await server.url;

    assert.deepEqual(await graphqlData(url, "{ repairQueueEnabled }"), { repairQueueEnabled: true });
    assert.deepEqual(await graphqlData(url, "mutation { setRepairQueueEnabled(enabled: false) }"), { setRepairQueueEnabled: false });
    assert.deepEqual(await graphqlData(url, "{ repairQueueEnabled }"), { repairQueueEnabled: false });
    assert.deepEqual(await graphqlData(url, "{ __schema { queryType { name } } }"), { __schema: { queryType: { name: "Query" } } });

    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    const { status, store } = (await health.json()) as { status: string; store: string };
    assert.deepEqual({ status, store }, { status: "ok", store: "sqlite" });
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /graphiql\/graphiql\.js/);
    const script = await fetch(`${url}/graphiql/graphiql.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /^text\/javascript/);
    await script.arrayBuffer();
    const statusPage = await fetch(`${url}/status`);
    assert.equal(statusPage.status, 200, "the status page is in the tarball");
    assert.match(await statusPage.text(), /status\/status\.js/);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    assert.ok(server, "the server runs");
    server.child.kill("SIGTERM");
    assert.equal(await server.exitCode(), 0);
    server = null;
  });
});
