import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KvCompactedError, prefixRange, type KvCompare } from "../../../src/store/kv/kv-driver.js";
import { type KvDriverCapabilities, type OpenKvDriver, pairLine, putAll, revisionOf, withStore } from "./driver-contract-support.js";
import { driverWatchContract } from "./driver-contract-watch-cases.js";

export type { KvDriverCapabilities, OpenKvDriver, OpenedKvDriver } from "./driver-contract-support.js";

/** Keys in the byte order of their UTF-8 forms: digits as text, then a two-byte, a three-byte and a four-byte character. */
const ORDERED_KEYS = ["1", "10", "9", "Z", "~", "é", "\uFFFD", "😀"];

/**
 * The contract every KvDriver keeps (src/store/kv/kv-driver.ts), written once and run on each driver: `open` gives a
 * fresh store per case, `capabilities` says where the drivers rightly differ. Revisions are counted from the store's
 * revision when a case starts, so a driver may start anywhere.
 */
export function driverContract(name: string, capabilities: KvDriverCapabilities, open: OpenKvDriver): void {
  describe(`the key-value driver contract: ${name}`, () => {
    it("puts and gets a pair with its create and mod revisions; a second put keeps the create revision", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        await putAll(driver, { [`${prefix}a`]: "1" });
        await putAll(driver, { [`${prefix}a`]: "2" });
        const got = await driver.get("get", `${prefix}a`);
        assert.equal(pairLine(got.kv, prefix), `a=2 c${base + 1} m${base + 2}`);
        assert.equal(got.revision, base + 2);
        assert.deepEqual(await driver.get("get", `${prefix}absent`), { kv: null, revision: base + 2 });
      }));

    it("ranges in the byte order of the keys, with limit, more and keys only", () =>
      withStore(open, async ({ driver, prefix }) => {
        // Put in reverse, so that an order of insertion would show.
        for (const key of [...ORDERED_KEYS].reverse()) await putAll(driver, { [`${prefix}k/${key}`]: `v${key}` });
        await putAll(driver, { [`${prefix}l`]: "outside", [`${prefix}k`]: "outside too" });
        const range = prefixRange(`${prefix}k/`);
        const keysOf = (kvs: ReadonlyArray<{ key: string }>) => kvs.map((kv) => kv.key.slice(`${prefix}k/`.length));
        const cases = [
          { name: "all", options: {}, keys: ORDERED_KEYS, more: false },
          { name: "limit 0 is all", options: { limit: 0 }, keys: ORDERED_KEYS, more: false },
          { name: "limit 3", options: { limit: 3 }, keys: ORDERED_KEYS.slice(0, 3), more: true },
          { name: "limit of exactly all", options: { limit: ORDERED_KEYS.length }, keys: ORDERED_KEYS, more: false },
          { name: "limit past all", options: { limit: 100 }, keys: ORDERED_KEYS, more: false },
        ];
        for (const c of cases) {
          const got = await driver.range("range", range, c.options);
          assert.deepEqual({ keys: keysOf(got.kvs), more: got.more }, { keys: c.keys, more: c.more }, c.name);
          assert.deepEqual(
            got.kvs.map((kv) => kv.value.toString("utf8")),
            c.keys.map((k) => `v${k}`),
            `${c.name}: values`,
          );
        }
        const from = await driver.range("range", { start: `${prefix}k/9`, end: `${prefix}k/é` }, {});
        assert.deepEqual(keysOf(from.kvs), ["9", "Z", "~"], "start inclusive, end exclusive");
        const keysOnly = await driver.range("range", range, { keysOnly: true, limit: 2 });
        assert.deepEqual(
          keysOnly.kvs.map((kv) => ({ key: kv.key.slice(prefix.length), value: kv.value.length, create: kv.createRevision, mod: kv.modRevision > 0 })),
          [
            { key: "k/1", value: 0, create: keysOnly.revision - 1, mod: true },
            { key: "k/10", value: 0, create: keysOnly.revision - 2, mod: true },
          ],
        );
        assert.equal(keysOnly.more, true);
      }));

    it("counts the keys of a range", () =>
      withStore(open, async ({ driver, prefix }) => {
        await putAll(driver, { [`${prefix}c/1`]: "", [`${prefix}c/2`]: "", [`${prefix}c/3`]: "", [`${prefix}d`]: "" });
        assert.equal(await driver.count("count", prefixRange(`${prefix}c/`)), 3);
        assert.equal(await driver.count("count", { start: `${prefix}c/2`, end: `${prefix}d` }), 2);
        assert.equal(await driver.count("count", prefixRange(`${prefix}none/`)), 0);
      }));

    describe("compare-and-swap", () => {
      // `a` was created at base+1 and written again at base+2; `b` is absent.
      const cases: Array<{ name: string; compare: (base: number) => Omit<KvCompare, "key"> & { key: "a" | "b" }; succeeds: boolean }> = [
        { name: "mod revision equal", compare: (base) => ({ key: "a", target: "mod", revision: base + 2 }), succeeds: true },
        { name: "mod revision stale", compare: (base) => ({ key: "a", target: "mod", revision: base + 1 }), succeeds: false },
        { name: "mod revision 0 of an absent key", compare: () => ({ key: "b", target: "mod", revision: 0 }), succeeds: true },
        { name: "mod revision 0 of a present key", compare: () => ({ key: "a", target: "mod", revision: 0 }), succeeds: false },
        { name: "mod revision of an absent key", compare: (base) => ({ key: "b", target: "mod", revision: base + 2 }), succeeds: false },
        { name: "create revision equal", compare: (base) => ({ key: "a", target: "create", revision: base + 1 }), succeeds: true },
        { name: "create revision is not the mod revision", compare: (base) => ({ key: "a", target: "create", revision: base + 2 }), succeeds: false },
        { name: "create revision 0 of an absent key", compare: () => ({ key: "b", target: "create", revision: 0 }), succeeds: true },
        { name: "create revision 0 of a present key", compare: () => ({ key: "a", target: "create", revision: 0 }), succeeds: false },
      ];
      for (const c of cases) {
        it(`${c.name}: ${c.succeeds ? "commits" : "commits nothing and returns the reads"}`, () =>
          withStore(open, async ({ driver, prefix }) => {
            const base = await revisionOf(driver, prefix);
            await putAll(driver, { [`${prefix}a`]: "1" });
            await putAll(driver, { [`${prefix}a`]: "2" });
            const compare = c.compare(base);
            const result = await driver.txn("cas", {
              compares: [{ ...compare, key: `${prefix}${compare.key}` }],
              puts: [{ key: `${prefix}out`, value: "written" }],
              deletes: [],
              reads: [`${prefix}b`, `${prefix}a`],
            });
            if (c.succeeds) {
              assert.deepEqual(result, { succeeded: true, revision: base + 3, reads: [] });
              assert.equal(pairLine((await driver.get("get", `${prefix}out`)).kv, prefix), `out=written c${base + 3} m${base + 3}`);
            } else {
              assert.deepEqual(
                { ...result, reads: result.reads.map((kv) => pairLine(kv, prefix)) },
                { succeeded: false, revision: base + 2, reads: [null, `a=2 c${base + 1} m${base + 2}`] },
              );
              assert.equal((await driver.get("get", `${prefix}out`)).kv, null);
            }
          }));
      }
    });

    it("a failed transaction changes nothing, however many compares hold, and does not advance the revision", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        await putAll(driver, { [`${prefix}x/1`]: "1", [`${prefix}x/2`]: "2" });
        const result = await driver.txn("failing", {
          compares: [
            { key: `${prefix}x/1`, target: "mod", revision: base + 1 },
            { key: `${prefix}x/2`, target: "mod", revision: 0 },
          ],
          puts: [{ key: `${prefix}x/1`, value: "changed" }],
          deletes: [prefixRange(`${prefix}x/2`)],
          reads: [],
        });
        assert.deepEqual(result, { succeeded: false, revision: base + 1, reads: [] });
        const all = await driver.range("range", prefixRange(`${prefix}x/`));
        assert.deepEqual(
          all.kvs.map((kv) => pairLine(kv, prefix)),
          [`x/1=1 c${base + 1} m${base + 1}`, `x/2=2 c${base + 1} m${base + 1}`],
        );
        assert.equal(all.revision, base + 1);
      }));

    it("deletes by range; a write advances the revision by one, however many keys it changes; deleting nothing is no write", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        assert.equal(await putAll(driver, { [`${prefix}a/1`]: "", [`${prefix}a/2`]: "", [`${prefix}a/3`]: "", [`${prefix}b`]: "" }), base + 1);
        const txn = (deletes: Array<{ start: string; end: string }>) => driver.txn("delete", { compares: [], puts: [], deletes, reads: [] });
        assert.deepEqual(await txn([{ start: `${prefix}a/1`, end: `${prefix}a/3` }]), { succeeded: true, revision: base + 2, reads: [] });
        assert.deepEqual(
          (await driver.range("range", prefixRange(prefix))).kvs.map((kv) => kv.key.slice(prefix.length)),
          ["a/3", "b"],
        );
        // etcd advances its revision only for a transaction that changed a key (mvcc storeTxnWrite.End).
        assert.deepEqual(await txn([prefixRange(`${prefix}none/`)]), { succeeded: true, revision: base + 2, reads: [] }, "nothing deleted");
        assert.deepEqual(await txn([]), { succeeded: true, revision: base + 2, reads: [] }, "nothing at all");
        assert.equal(await putAll(driver, { [`${prefix}c`]: "" }), base + 3);
        assert.equal(await revisionOf(driver, prefix), base + 3);
      }));

    it("refuses a transaction that puts a key twice or puts a key it deletes, as etcd does, and writes nothing", () =>
      withStore(open, async ({ driver, prefix }) => {
        const base = await revisionOf(driver, prefix);
        const twice = {
          compares: [],
          puts: [
            { key: `${prefix}d`, value: "1" },
            { key: `${prefix}d`, value: "2" },
          ],
          deletes: [],
          reads: [],
        };
        await assert.rejects(driver.txn("twice", twice));
        const putAndDelete = { compares: [], puts: [{ key: `${prefix}d/1`, value: "1" }], deletes: [prefixRange(`${prefix}d/`)], reads: [] };
        await assert.rejects(driver.txn("put and delete", putAndDelete));
        assert.equal(await driver.count("count", prefixRange(prefix)), 0);
        assert.equal(await revisionOf(driver, prefix), base);
      }));

    it(
      capabilities.keepsRevisions ? "reads at an older revision, as it was then" : "refuses a read at any revision but the current one (KvCompactedError)",
      () =>
        withStore(open, async ({ driver, prefix }) => {
          const base = await revisionOf(driver, prefix);
          await putAll(driver, { [`${prefix}a`]: "old" });
          await putAll(driver, { [`${prefix}a`]: "new" });
          const current = await driver.get("get", `${prefix}a`, { revision: base + 2 });
          assert.equal(pairLine(current.kv, prefix), `a=new c${base + 1} m${base + 2}`, "the current revision is served");
          if (capabilities.keepsRevisions) {
            const old = await driver.get("get", `${prefix}a`, { revision: base + 1 });
            assert.deepEqual({ kv: pairLine(old.kv, prefix), revision: old.revision >= base + 1 }, { kv: `a=old c${base + 1} m${base + 1}`, revision: true });
            const range = await driver.range("range", prefixRange(prefix), { revision: base + 1 });
            assert.deepEqual(
              range.kvs.map((kv) => kv.value.toString("utf8")),
              ["old"],
            );
          } else {
            await assert.rejects(driver.get("get", `${prefix}a`, { revision: base + 1 }), KvCompactedError);
            await assert.rejects(driver.range("range", prefixRange(prefix), { revision: base + 1 }), KvCompactedError);
          }
        }),
    );

    it("keeps its keys and its revision when closed and opened again", () =>
      withStore(open, async (store) => {
        const { driver, prefix } = store;
        const base = await revisionOf(driver, prefix);
        await putAll(driver, { [`${prefix}a`]: "1", [`${prefix}b`]: "2" });
        await putAll(driver, { [`${prefix}a`]: "3" });
        const reopened = await store.reopen();
        const got = await reopened.range("range", prefixRange(prefix));
        assert.deepEqual(
          got.kvs.map((kv) => pairLine(kv, prefix)),
          [`a=3 c${base + 1} m${base + 2}`, `b=2 c${base + 1} m${base + 1}`],
        );
        assert.equal(got.revision, base + 2);
        assert.equal(await putAll(reopened, { [`${prefix}c`]: "" }), base + 3, "the next write follows the revision kept");
      }));

    driverWatchContract(open, capabilities.keepsRevisions);
  });
}
