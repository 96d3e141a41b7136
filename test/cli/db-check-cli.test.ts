import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { NEWEST_SCHEMA_VERSION } from "../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { corruptTablePage, fromNewerKintsugi, olderDatabase, realisticDatabase } from "../support/damaged-databases.js";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";

describe("kintsugi db check (in-process; serve as the real binary)", () => {
  let dir: ReturnType<typeof tempDir>;
  afterEach(() => dir.remove());

  const cases: Array<[string, (file: string) => unknown, number, (file: string) => RegExp]> = [
    [
      "a database kintsugi wrote: exit 0, the schema version, the counts and the sha256",
      realisticDatabase,
      0,
      (file) =>
        new RegExp(
          `^${file}: ok\n  integrity ok, foreign keys ok\n  schema version ${NEWEST_SCHEMA_VERSION} \\(this kintsugi's\\)\n  repair entries      4\n  history records     16\n  settings            10\n  poll outcomes       3\n  generation records  5\n  machine holds       3\n  finished repairs    3\n  replay records      2\n  next index 8, next history sequence 17, next outcome sequence 4, next generation sequence 6\n  sha256 [0-9a-f]{64}\n$`,
        ),
    ],
    [
      "a database of an older schema: exit 0, it is migrated forward at start",
      (file) => olderDatabase(file, 3),
      0,
      () => new RegExp(`\n  schema version 3, older than this kintsugi's \\(${NEWEST_SCHEMA_VERSION}\\): kintsugi serve migrates it forward at start\n`),
    ],
    [
      "a damaged page: exit 1",
      async (file) => (await realisticDatabase(file), corruptTablePage(file)),
      1,
      (file) => new RegExp(`^kintsugi: database ${file} fails its check: SQLite's integrity check`),
    ],
    [
      "a database from a newer kintsugi: exit 1",
      async (file) => (await realisticDatabase(file), fromNewerKintsugi(file)),
      1,
      (file) =>
        new RegExp(
          `^kintsugi: database ${file} fails its check: schema version ${NEWEST_SCHEMA_VERSION + 1} is newer than this kintsugi's \\(${NEWEST_SCHEMA_VERSION}\\)`,
        ),
    ],
    ["a missing file: exit 1, nothing created", () => undefined, 1, (file) => new RegExp(`^kintsugi: there is no SQLite database at ${file}\n$`)],
  ];
  for (const [name, make, code, output] of cases) {
    it(name, async () => {
      dir = tempDir();
      const file = join(dir.path, "kintsugi.db");
      await make(file);
      const res = await runCliInProcess(["db", "check", file]);
      assert.equal(res.code, code, res.stderr);
      assert.match(code === 0 ? res.stdout : res.stderr, output(file));
      assert.equal(code === 0 ? res.stderr : res.stdout, "");
      if (name.includes("missing")) assert.deepEqual(readdirSync(dir.path), []);
    });
  }

  it("checks the config's database, or --database, when given no file", async () => {
    dir = tempDir();
    await realisticDatabase(join(dir.path, "state", "k.db"));
    writeFileSync(join(dir.path, "k.yaml"), "database: ./state/k.db\n");
    const res = await runCliInProcess(["db", "check", "--config", "k.yaml"], { cwd: dir.path });
    assert.equal(res.code, 0, res.stderr);
    assert.ok(res.stdout.startsWith(`${join(dir.path, "state", "k.db")}: ok\n`), res.stdout);
    writeFileSync(join(dir.path, "etcd.yaml"), "store: etcd\n");
    const chosen = await runCliInProcess(["db", "check", "--config", "etcd.yaml", "--database", "state/k.db"], { cwd: dir.path });
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.ok(chosen.stdout.startsWith(`${join(dir.path, "state", "k.db")}: ok\n`), "--database wins over the config's store");
  });

  it("kintsugi serve refuses a database from a newer kintsugi, saying how to go back, and leaves it as it is", async () => {
    dir = tempDir();
    const file = join(dir.path, "kintsugi.db");
    await realisticDatabase(file);
    fromNewerKintsugi(file);
    const before = readFileSync(file);
    writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./kintsugi.db\n`);
    const res = await runCli(["serve", "--config", "k.yaml"], { cwd: dir.path });
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr,
      `kintsugi: database ${file} has schema version ${NEWEST_SCHEMA_VERSION + 1}, newer than this kintsugi knows (${NEWEST_SCHEMA_VERSION}): a newer kintsugi wrote it. ` +
        "Run that version or a newer one; to go back to this version, restore a backup made before the upgrade (kintsugi db restore)\n",
    );
    assert.deepEqual(readFileSync(file), before);
  });

  it("documents backup, restore and check in --help", async () => {
    const help = async (command: string) => (await runCliInProcess(["db", command, "--help"])).stdout;
    for (const text of ["<OUT>", "--force", "--config <FILE>", "--database <FILE>", "one read transaction", "kintsugi db backup /var/backups/"])
      assert.ok((await help("backup")).includes(text), text);
    for (const text of ["<BACKUP>", "Stop kintsugi first", "before-restore"]) assert.ok((await help("restore")).includes(text), text);
    for (const text of ["[FILE]", "integrity", "exit\ncode 0"]) assert.ok((await help("check")).includes(text), text);
  });
});
