import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { StoreSchemaError } from "../../src/store/core/schema-version.js";
import { STORE_SCHEMA_VERSION } from "../../src/store/core/store-values.js";
import { openEtcdStore } from "../../src/store/kv/etcd/open-etcd-store.js";
import { openSqliteKvDriver, openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import { SQLITE_KV_PREFIX } from "../../src/store/kv/sqlite/sqlite-kv-schema.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { logTo, type Log, type LogFields } from "../../src/support/log.js";
import { suiteEtcd } from "../support/suite-etcd.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP } from "../support/test-etcd.js";

/** One store on one driver, seeded with raw values (keys under its prefix) before it opens. */
interface Place {
  /** How the store's errors and log lines name it. */
  readonly place: string;
  readonly prefix: string;
  open(log: Log): Promise<KintsugiStore>;
}

/** What a store seeded with `values` says: an error naming its place, or a log line carrying it. */
const cases: Array<{ name: string; values: Record<string, string>; says: (p: Place) => RegExp | { message: string; fields: RegExp } }> = [
  {
    name: "a schema key that is not kintsugi's",
    values: { schema: "hello" },
    says: (p) => new RegExp(`^${escape(p.place)} has a schema key \\(${escape(p.prefix)}schema\\) that is not kintsugi's: "hello"$`),
  },
  {
    name: "a schema version newer than this kintsugi's",
    values: { schema: JSON.stringify({ v: STORE_SCHEMA_VERSION + 1 }) },
    says: (p) =>
      new RegExp(
        `^${escape(p.place)} has schema version ${STORE_SCHEMA_VERSION + 1}, newer than this kintsugi knows \\(${STORE_SCHEMA_VERSION}\\); upgrade kintsugi$`,
      ),
  },
  {
    name: "a repair entry that is not JSON",
    values: { "entries/0000000000000001": "{ not json" },
    says: (p) => ({
      message: "a stored value cannot be read; the mirror leaves it out",
      fields: new RegExp(`^store key ${escape(p.prefix)}entries/0000000000000001 does not hold JSON`),
    }),
  },
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Runs every case on the driver `seeded` opens. */
function placeCases(seeded: (values: Record<string, string>) => Promise<Place>): void {
  for (const c of cases) {
    it(`names the store's place for ${c.name}`, async () => {
      const p = await seeded(c.values);
      const lines: Array<{ message: string; fields: LogFields }> = [];
      const log = logTo((level, message, fields) => {
        if (level === "error") lines.push({ message, fields });
      });
      const says = c.says(p);
      if (says instanceof RegExp) {
        await assert.rejects(p.open(log), (err: Error) => err instanceof StoreSchemaError && says.test(err.message));
        return;
      }
      const store = await p.open(log);
      try {
        const line = lines.find((l) => l.message === says.message);
        assert.ok(line, `logged ${says.message}: ${JSON.stringify(lines)}`);
        assert.equal(line.fields["store"], p.place);
        assert.match(String(line.fields["error"]), says.fields);
      } finally {
        await store.close();
      }
    });
  }
}

describe("a SQLite store names its file", () => {
  const dir = tempDir();
  let n = 0;
  after(() => dir.remove());
  placeCases(async (values) => {
    const file = join(dir.path, `store-${++n}.db`);
    const driver = openSqliteKvDriver(file);
    await driver.txn("seeding", {
      compares: [],
      puts: Object.entries(values).map(([key, value]) => ({ key: `${SQLITE_KV_PREFIX}${key}`, value })),
      deletes: [],
      reads: [],
    });
    await driver.close();
    return { place: `SQLite database ${file}`, prefix: SQLITE_KV_PREFIX, open: (log) => openSqliteStore({ path: file, log }) };
  });
});

describe("an etcd store names its prefix", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("place");
  placeCases(async (values) => {
    const prefix = suite.freshPrefix();
    for (const [key, value] of Object.entries(values)) await suite.client.put(`${prefix}${key}`).value(value);
    return { place: `etcd prefix ${prefix}`, prefix, open: (log) => openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix, log }) };
  });
});
