import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KvCompactedError, prefixRange, type KvEvent, type KvTxn } from "../../../src/store/kv/kv-driver.js";
import { type OpenKvDriver, putAll, RecordingSink, revisionOf, withStore } from "./driver-contract-support.js";

const txn = (parts: Partial<KvTxn>): KvTxn => ({ compares: [], puts: [], deletes: [], reads: [], ...parts });

/** The watch's part of the contract (driverContract registers it): order, grouping, range, cancel, old revisions. */
export function driverWatchContract(open: OpenKvDriver, keepsRevisions: boolean): void {
  describe("watch", () => {
    it("delivers one call per revision, in commit order, the events in op order, with the puts and deletes of its range only", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        const sink = new RecordingSink(base + 1);
        const watch = await driver.watch(prefixRange(`${prefix}w/`), base + 1, sink);
        try {
          const put = (key: string, value: string) => ({ key: `${prefix}${key}`, value });
          await driver.txn("1", txn({ puts: [put("w/b", "1"), put("out", "x"), put("w/a", "2")] }));
          // A single writer announces a commit before its write resolves: the core's mirror has it then.
          if (driver.singleWriter) assert.equal(sink.calls.length, 1, "delivered before the write resolved");
          await driver.txn("2", txn({ puts: [put("out", "y")] }));
          await driver.txn("3", txn({ puts: [put("out2", "z")], deletes: [prefixRange(`${prefix}w/`)] }));
          await driver.txn("4", txn({ puts: [put("w/c", "3"), put("w/a", "4")] }));
          await sink.received(3);
          assert.deepEqual(sink.lines(prefix, base), ["@1 put w/b=1, put w/a=2", "@3 delete w/a, delete w/b", "@4 put w/c=3, put w/a=4"]);
        } finally {
          await watch.cancel();
        }
      }));

    it("from a revision still to come, delivers from that revision on", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        const sink = new RecordingSink(base + 3);
        const watch = await driver.watch(prefixRange(prefix), base + 3, sink);
        try {
          for (const value of ["1", "2", "3", "4"]) await putAll(driver, { [`${prefix}a`]: value });
          await sink.received(2);
          assert.deepEqual(sink.lines(prefix, base), ["@3 put a=3", "@4 put a=4"]);
        } finally {
          await watch.cancel();
        }
      }));

    it("stops delivering when cancelled; other watches go on", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        const cancelled = new RecordingSink(base + 1);
        const kept = new RecordingSink(base + 1);
        const first = await driver.watch(prefixRange(prefix), base + 1, cancelled);
        const second = await driver.watch(prefixRange(prefix), base + 1, kept);
        try {
          await putAll(driver, { [`${prefix}a`]: "1" });
          await Promise.all([cancelled.received(1), kept.received(1)]);
          await first.cancel();
          await putAll(driver, { [`${prefix}a`]: "2" });
          await kept.received(2);
          assert.deepEqual(cancelled.lines(prefix, base), ["@1 put a=1"]);
        } finally {
          await second.cancel();
        }
      }));

    it("a sink that throws breaks neither the write nor the other watches, and is told of later commits", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        const seen: number[] = [];
        const throwing = new (class extends RecordingSink {
          override events(revision: number, events: readonly KvEvent[]): void {
            super.events(revision, events);
            seen.push(revision - base);
            throw new Error("a sink's own failure");
          }
        })(base + 1);
        const kept = new RecordingSink(base + 1);
        const watches = [await driver.watch(prefixRange(prefix), base + 1, throwing), await driver.watch(prefixRange(prefix), base + 1, kept)];
        try {
          assert.equal(await putAll(driver, { [`${prefix}a`]: "1" }), base + 1);
          assert.equal(await putAll(driver, { [`${prefix}a`]: "2" }), base + 2);
          await Promise.all([kept.received(2), throwing.received(2)]);
          assert.deepEqual(kept.lines(prefix, base), ["@1 put a=1", "@2 put a=2"]);
          assert.deepEqual(seen, [1, 2]);
          assert.equal((await driver.get("get", `${prefix}a`)).kv?.value.toString("utf8"), "2");
        } finally {
          for (const w of watches) await w.cancel();
        }
      }));

    it(keepsRevisions ? "from a past revision, delivers what was committed since" : "refuses a watch from a past revision (KvCompactedError)", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        await putAll(driver, { [`${prefix}a`]: "1" });
        await putAll(driver, { [`${prefix}b`]: "2" });
        const sink = new RecordingSink(base + 1);
        if (!keepsRevisions) {
          await assert.rejects(driver.watch(prefixRange(prefix), base + 1, sink), KvCompactedError);
          await assert.rejects(driver.watch(prefixRange(prefix), base + 2, sink), KvCompactedError, "the current revision is past too");
          return;
        }
        const watch = await driver.watch(prefixRange(prefix), base + 1, sink);
        try {
          await sink.received(2);
          assert.deepEqual(sink.lines(prefix, base), ["@1 put a=1", "@2 put b=2"]);
        } finally {
          await watch.cancel();
        }
      }),
    );
  });
}
