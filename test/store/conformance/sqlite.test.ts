import { join } from "node:path";
import Database from "better-sqlite3";
import { describe } from "node:test";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { tempDir } from "../../support/temp-dir.js";
import { storeConformance, type StoreHarness } from "./store-conformance.js";

/**
 * The conformance suite on SQLite files, a new file per test. SQLite's lock admits one live instance per file, so
 * the cases that need a second live instance (a follower, a contender, a leader's guard) skip themselves here.
 */
describe("sqlite store backend", () => {
  let file = "";
  let dir: ReturnType<typeof tempDir> | null = null;
  let current: KintsugiStore | null = null;
  const harness: StoreHarness = {
    name: "sqlite",
    skip: false,
    open: async (options) => {
      dir = tempDir();
      file = join(dir.path, "kintsugi.db");
      current = await openSqliteStore({ path: file, ...options });
      return current;
    },
    reopen: async (options) => {
      await current?.close();
      current = await openSqliteStore({ path: file, ...options });
      return current;
    },
    corruptPollRecords: async () => {
      await current?.close();
      current = null;
      const db = new Database(file);
      db.prepare("UPDATE kv SET value = CAST('{\"v\":1,\"body\":\"AAAA\"}' AS BLOB) WHERE key >= '/kintsugi/records/' AND key < '/kintsugi/records0'").run();
      db.close();
    },
    cleanup: async () => {
      await current?.close();
      current = null;
      dir?.remove();
      dir = null;
    },
  };
  storeConformance(harness);
});
