import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { EtcdKvDriver } from "../../../src/store/kv/etcd/etcd-kv-driver.js";
import { EtcdCompaction, type EtcdCompactionSettings } from "../../../src/store/kv/etcd/etcd-compaction.js";
import { KvCompactedError } from "../../../src/store/kv/kv-driver.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { logTo, SILENT_LOG } from "../../../src/support/log.js";
import { NOW } from "../../support/fixtures.js";
import type { LoggedLine } from "../../support/logging-etcd-stores.js";
import { suiteEtcd, type SuiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";
import { ACTOR, newEntry } from "../conformance/store-harness.js";

const HOUR = 3_600_000;

/** What a test opened (stores, drivers), closed after it even when it fails, so a failing test cannot hang the file. */
let opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(opened.map((o) => o.close()));
  opened = [];
});

/** A store on the suite's etcd whose log lines land in the returned array. */
async function openLogged(suite: SuiteEtcd, prefix: string, compaction: EtcdCompactionSettings): Promise<{ store: KintsugiStore; logged: LoggedLine[] }> {
  const logged: LoggedLine[] = [];
  const log = logTo((level, message, fields) => logged.push({ level, message, fields }));
  const store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix, log, compaction });
  opened.push(store);
  return { store, logged };
}

/** A driver of its own, to read etcd's revision and to read at an old one as any client would. */
function driverOf(suite: SuiteEtcd): EtcdKvDriver {
  const limits = { maxTxnOps: 128, maxRequestBytes: 1 << 20 };
  const driver = new EtcdKvDriver({ client: suite.client, probeKey: "/probe", endpoints: suite.etcd.endpoints, timeoutMs: 2000, limits, log: SILENT_LOG });
  opened.push(driver);
  return driver;
}

const add = (store: KintsugiStore, address: string) => store.enqueue(() => ({ add: [{ entry: newEntry(address), reason: "r" }], outcome: null }), NOW, ACTOR);

const sampledAtLeast = (logged: readonly LoggedLine[], revision: number) =>
  logged.some((l) => l.message === "sampled etcd's revision for compaction" && Number(l.fields["revision"]) >= revision);

describe("kintsugi compacts etcd's old revisions", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("compaction");

  it("compacts what is older than the retention once it passes; the store, its watch and a second replica go on", async () => {
    let clock = NOW;
    const settings: EtcdCompactionSettings = { retentionMs: HOUR, intervalMs: 10, now: () => clock };
    const prefix = suite.freshPrefix();
    const a = await openLogged(suite, prefix, settings);
    const b = await openLogged(suite, prefix, settings);
    const driver = driverOf(suite);
    await add(a.store, "10.0.0.1");
    const { revision: written } = await driver.get("reading the revision", "/probe");
    // Both replicas have seen the write's revision while the clock still reads NOW.
    await until("both replicas sampled the write's revision", () => sampledAtLeast(a.logged, written) && sampledAtLeast(b.logged, written));
    const oldEnough = await driver.get("reading before the retention passes", `${prefix}schema`, { revision: written - 1 });
    assert.equal(oldEnough.revision >= written, true, "not compacted while the retention has not passed");

    clock = NOW + HOUR;
    const compacted = await until("a replica compacted to the write's revision", () =>
      [...a.logged, ...b.logged].find((l) => l.message === "compacted etcd's old revisions" && Number(l.fields["revision"]) >= written),
    );
    assert.ok(compacted);
    await assert.rejects(driver.get("reading an old revision", `${prefix}schema`, { revision: written - 1 }), KvCompactedError);

    // The store goes on, and each replica's watch (current, not behind the compaction) still delivers.
    await add(b.store, "10.0.0.2");
    await until("the first replica's watch delivered the second replica's write", () => a.store.entries.list().length === 2);
    await add(a.store, "10.0.0.3");
    await until("the second replica's watch delivered the first replica's write", () => b.store.entries.list().length === 3);
    assert.deepEqual([a.store.health().healthy, b.store.health().healthy], [true, true]);
    // The replica whose compaction etcd refused (already compacted past it) says nothing above debug.
    assert.deepEqual(
      [...a.logged, ...b.logged].filter((l) => l.level === "warn" || l.level === "error"),
      [],
    );
  });

  it("a compaction etcd refuses (already done, or a future revision) is its answer, not an outage: the store stays healthy", async () => {
    const driver = driverOf(suite);
    const { revision } = await driver.get("reading the revision", "/probe");
    await driver.compact("compacting to the current revision", revision);
    await assert.rejects(driver.compact("compacting to an older revision", revision - 1), KvCompactedError);
    await assert.rejects(
      driver.compact("compacting to a future revision", revision + 1_000),
      /etcd refused the compaction to revision \d+ \(.*future revision/,
    );
    assert.deepEqual(driver.health(), { backend: "etcd", healthy: true });
  });

  it("stops with the store: no sample is taken after close", async () => {
    const first = await openLogged(suite, suite.freshPrefix(), { retentionMs: HOUR, intervalMs: 5, now: () => NOW });
    await until("a first sample", () => first.logged.some((l) => l.message === "sampled etcd's revision for compaction"));
    await first.store.close();
    const sampled = () => first.logged.filter((l) => l.message.startsWith("sampled")).length;
    const samples = sampled();
    // Another store sampling three times marks time passing: a loop still going would have sampled meanwhile.
    const other = await openLogged(suite, suite.freshPrefix(), { retentionMs: HOUR, intervalMs: 5, now: () => NOW });
    await until("the other store sampled three times", () => other.logged.filter((l) => l.message.startsWith("sampled")).length >= 3);
    await other.store.close();
    assert.equal(sampled(), samples);
  });

  it("with the retention 0 (off) takes no sample and compacts nothing", async () => {
    const off = await openLogged(suite, suite.freshPrefix(), { retentionMs: 0, intervalMs: 5, now: () => NOW + HOUR });
    // Another store sampling three times marks time passing: a loop running would have sampled meanwhile.
    const other = await openLogged(suite, suite.freshPrefix(), { retentionMs: HOUR, intervalMs: 5, now: () => NOW });
    await until("the other store sampled three times", () => other.logged.filter((l) => l.message.startsWith("sampled")).length >= 3);
    assert.deepEqual(
      off.logged.filter((l) => /^(sampled|compacted)/.test(l.message)),
      [],
    );
  });
});

/** The start-up check; the cases run in order on one etcd, and the last compacts it. */
describe("at start, the etcd store checks that something compacts etcd", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("compaction-check");
  const FLAGS = /--auto-compaction-mode=periodic --auto-compaction-retention=1h/;
  const cases: Array<{ name: string; settings: EtcdCompactionSettings; compactFirst: boolean; error: boolean; info: boolean }> = [
    {
      name: "never compacted, past the threshold, kintsugi's compaction off: an error naming the flags",
      settings: { retentionMs: 0, warnAboveRevision: 1 },
      compactFirst: false,
      error: true,
      info: false,
    },
    {
      name: "never compacted but below the threshold: quiet",
      settings: { retentionMs: 0, warnAboveRevision: 1_000_000 },
      compactFirst: false,
      error: false,
      info: false,
    },
    {
      name: "never compacted, kintsugi compacts: an info line, no error",
      settings: { retentionMs: HOUR, warnAboveRevision: 1 },
      compactFirst: false,
      error: false,
      info: true,
    },
    { name: "compacted by etcd or another client: quiet", settings: { retentionMs: 0, warnAboveRevision: 1 }, compactFirst: true, error: false, info: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      if (c.compactFirst) {
        const driver = driverOf(suite);
        await driver.compact("compacting as etcd's own compactor would", (await driver.get("reading the revision", "/probe")).revision);
      }
      const { store, logged } = await openLogged(suite, suite.freshPrefix(), c.settings);
      await store.close();
      const errors = logged.filter((l) => l.level === "error");
      assert.equal(errors.length, c.error ? 1 : 0, JSON.stringify(errors));
      if (c.error) assert.match(errors[0]?.message ?? "", FLAGS);
      assert.equal(
        logged.some((l) => l.level === "info" && /never been compacted; kintsugi compacts/.test(l.message)),
        c.info,
      );
    });
  }
});

/** As on an etcd with auth on whose version permits compaction only to root (CKE's docs/etcd.md; etcd 3.4 does not check). */
describe("etcd refuses kintsugi's compaction", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("compaction-refused");

  it("warns once with what to do, tries again every sample as etcd's compactor does, and never throws", async () => {
    const real = driverOf(suite);
    const refused: Array<{ compact: number }> = [];
    const driver: Pick<EtcdKvDriver, "get" | "compact" | "description"> = {
      description: real.description,
      get: (what, key, options) => real.get(what, key, options),
      compact: async (_what, revision) => {
        refused.push({ compact: revision });
        throw new Error("compacting etcd's old revisions: etcd refused the compaction (etcdserver: permission denied)");
      },
    };
    let clock = NOW;
    const logged: LoggedLine[] = [];
    const log = logTo((level, message, fields) => logged.push({ level, message, fields }));
    const compaction = new EtcdCompaction({ driver, probeKey: "/probe", retentionMs: HOUR, intervalMs: 5, now: () => clock, log });
    opened.push({ close: () => compaction.stop() });
    await compaction.start();
    await until("a first sample", () => logged.some((l) => l.message.startsWith("sampled")));
    clock = NOW + HOUR;
    await until("three refused compactions", () => refused.length >= 3);
    await compaction.stop();
    const warnings = logged.filter((l) => l.level === "warn");
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]?.message, "etcd's old revisions could not be compacted");
    assert.match(String(warnings[0]?.fields["hint"]), /root role.*compaction-retention: off.*--auto-compaction-mode=periodic/);
    assert.equal(logged.filter((l) => l.level === "debug" && l.message === "etcd's old revisions could not be compacted").length, refused.length - 1);
  });
});
