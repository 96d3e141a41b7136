import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Etcd3 } from "etcd3";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import { openSqliteSnapshotTarget } from "../../src/store/copy/snapshot-access.js";
import { testEtcdClient } from "../support/etcd-clients.js";
import { portView, writeRealisticHistory } from "../support/realistic-store.js";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";

const SUMMARY = (from: string, to: string, sha: string) =>
  `copied ${from} -> ${to}, verified\n` +
  "  repair entries      4\n" +
  "  history records     16\n" +
  "  settings            10\n" +
  "  poll outcomes       3\n" +
  "  generation records  5\n" +
  "  machine holds       3\n" +
  "  finished repairs    3\n" +
  "  replay records      2\n" +
  "  next index 8, next history sequence 17, next outcome sequence 4, next generation sequence 6\n" +
  `  sha256 ${sha} (source and copy)\n`;

/** `kintsugi db copy` driven in-process, against a real etcd and real SQLite files. */
describe("kintsugi db copy (in-process; serve as the real binary)", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let dir: ReturnType<typeof tempDir>;
  let view: object;
  const prefix = `/db-copy-${process.pid}/`;

  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
    dir = tempDir();
    writeFileSync(join(dir.path, "k.yaml"), `store: etcd\netcd:\n  endpoints: ["${etcd.endpoints[0]}"]\n  prefix: ${prefix}\n  timeout: 5s\n`);
    writeFileSync(join(dir.path, "down.yaml"), `etcd:\n  endpoints: ["http://127.0.0.1:1"]\n  timeout: 300ms\n`);
    const store = await openSqliteStore({ path: join(dir.path, "original.db") });
    await writeRealisticHistory(store);
    view = await portView(store);
    await store.close();
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
    dir?.remove();
  });

  const cli = (...args: string[]) => runCliInProcess(["db", "copy", ...args], { cwd: dir.path });
  /** What a copy writes on stderr off a terminal: a line a second while it runs (none for a copy this small, most of the time), then the end. */
  const PROGRESS = /^(copying: [\d,]+ of [\d,]+ items \(\d+%\), [^\n]*\n)*copying: [\d,]+ items, done in \d+ s\n$/;
  const onEtcd = () => `etcd prefix ${prefix} on ${etcd.endpoints[0]}`;

  it("moves a SQLite installation to etcd and back, printing what it copied and the hash of both", async () => {
    const there = await cli("--from", "sqlite:original.db", "--to", "etcd", "--config", "k.yaml");
    assert.match(there.stderr, PROGRESS);
    assert.equal(there.code, 0);
    const sha = /sha256 ([0-9a-f]{64})/.exec(there.stdout)?.[1] ?? "";
    assert.equal(there.stdout, SUMMARY(`sqlite:${join(dir.path, "original.db")}`, onEtcd(), sha));

    const back = await cli("--from", "etcd", "--to", "sqlite:back/kintsugi.db", "--config", "k.yaml");
    assert.match(back.stderr, PROGRESS);
    assert.equal(back.code, 0);
    assert.equal(back.stdout, SUMMARY(onEtcd(), `sqlite:${join(dir.path, "back", "kintsugi.db")}`, sha), "the same hash both ways");
    const store = await openSqliteStore({ path: join(dir.path, "back", "kintsugi.db") });
    try {
      assert.deepEqual(await portView(store), view);
    } finally {
      await store.close();
    }
  });

  it("shows its progress on a terminal as one line rewritten in place, ended once the copy is", async () => {
    const copied = await runCliInProcess(["db", "copy", "--from", "sqlite:original.db", "--to", "sqlite:tty/kintsugi.db"], { cwd: dir.path, terminal: true });
    assert.equal(copied.code, 0, copied.stderr);
    assert.match(copied.stderr, /^(\r\x1b\[Kcopying: [\d,]+ of [\d,]+ items \(\d+%\), [^\n\r]*)*\r\x1b\[Kcopying: [\d,]+ items, done in \d+ s\n$/);
    assert.match(copied.stdout, /^copied sqlite:/);
  });

  it("documents itself in --help", async () => {
    const res = await runCliInProcess(["db", "copy", "--help"]);
    assert.equal(res.code, 0);
    for (const text of ["--from <STORE>", "--to <STORE>", "--config <FILE>", "copy marker", "kintsugi db copy --from sqlite:"])
      assert.ok(res.stdout.includes(text), text);
  });

  const refused: Array<[string, () => string[], () => string]> = [
    [
      "a store that is not sqlite:FILE or etcd",
      () => ["--from", "mysql:x", "--to", "etcd"],
      () =>
        `error: option '--from <STORE>' argument 'mysql:x' is invalid. must be "sqlite:FILE" (a SQLite database file) or "etcd" (the etcd section of --config)\n`,
    ],
    ["no --to", () => ["--from", "etcd"], () => "error: required option '--to <STORE>' not specified\n"],
    [
      "--from equal to --to (etcd)",
      () => ["--from", "etcd", "--to", "etcd"],
      () => "kintsugi: --from and --to are the same store (the etcd section of the config); copy between SQLite and etcd\n",
    ],
    [
      "--from equal to --to (one file, two spellings)",
      () => ["--from", "sqlite:original.db", "--to", `sqlite:${dir.path}/./original.db`],
      () => `kintsugi: --from and --to are the same store (${join(dir.path, "original.db")})\n`,
    ],
    [
      "a SQLite source that does not exist",
      () => ["--from", "sqlite:missing.db", "--to", "etcd", "--config", "k.yaml"],
      () => `kintsugi: there is no SQLite database at ${join(dir.path, "missing.db")}\n`,
    ],
    [
      "a target that holds data (what the first test copied)",
      () => ["--from", "sqlite:original.db", "--to", "etcd", "--config", "k.yaml"],
      () => `kintsugi: the etcd prefix ${prefix} already holds data (`,
    ],
    [
      "an etcd that does not answer",
      () => ["--from", "etcd", "--to", "sqlite:new.db", "--config", "down.yaml"],
      () => "kintsugi: etcd at http://127.0.0.1:1 did not answer (reading /kintsugi/copy-in-progress): ",
    ],
    ["a config file that cannot be read", () => ["--from", "etcd", "--to", "sqlite:new.db", "--config", "nope.yaml"], () => "kintsugi: nope.yaml: cannot read"],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name}, exit 1`, async () => {
      const res = await cli(...args());
      assert.equal(res.code, 1);
      assert.equal(res.stdout, "");
      assert.ok(res.stderr.startsWith(message()), res.stderr);
      assert.equal(existsSync(join(dir.path, "new.db")), false, "no target made");
    });
  }

  it("refuses a SQLite file a running kintsugi holds, naming its pid", async () => {
    const held = join(dir.path, "held.db");
    const running = await openSqliteStore({ path: held });
    try {
      const res = await cli("--from", "sqlite:held.db", "--to", "sqlite:new.db");
      assert.equal(res.code, 1);
      assert.ok(res.stderr.startsWith(`kintsugi: database ${held} is in use by another kintsugi process (pid ${process.pid})`), res.stderr);
    } finally {
      await running.close();
    }
  });

  it("leaves a store whose copy did not finish that kintsugi serve refuses to start on", async () => {
    const file = join(dir.path, "unfinished.db");
    const target = openSqliteSnapshotTarget(file);
    await target.begin({ copyId: "c1", source: "sqlite:/elsewhere.db", startedAt: "2026-11-22T05:00:00.000Z" });
    await target.close();
    writeFileSync(join(dir.path, "unfinished.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./unfinished.db\n`);
    const res = await runCli(["serve", "--config", "unfinished.yaml"], { cwd: dir.path });
    assert.equal(res.code, 1);
    assert.equal(
      res.stderr,
      `kintsugi: SQLite database ${file} holds an unfinished copy from sqlite:/elsewhere.db started at 2026-11-22T05:00:00.000Z: what it holds may be incomplete, ` +
        `so it is not opened. Empty it (remove ${file}, ${file}-wal and ${file}-shm) and run kintsugi db copy again into the empty store\n`,
    );
  });
});
