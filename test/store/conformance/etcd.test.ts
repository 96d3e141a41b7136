import { after, before, describe } from "node:test";
import type { Etcd3 } from "etcd3";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { contendedEtcdClient, testEtcdClient } from "../../support/etcd-clients.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../../support/test-etcd.js";
import { storeConformance, type OpenOptions, type StoreHarness } from "./store-conformance.js";

/**
 * The conformance suite on a real single-member etcd, each test on its own prefix. The second instance (a follower)
 * uses a client of its own, as another replica would.
 */
describe("etcd store backend", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let followerClient: Etcd3;
  let touchClient: Etcd3;
  let tests = 0;
  let prefix = "";
  let current: KintsugiStore | null = null;
  let opened: KintsugiStore[] = [];

  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
    followerClient = testEtcdClient(etcd.endpoints);
    touchClient = testEtcdClient(etcd.endpoints);
  });
  after(async () => {
    for (const c of [client, followerClient, touchClient]) c?.close();
    await etcd?.stop();
  });

  const open = async (on: Etcd3, options: OpenOptions = {}): Promise<KintsugiStore> => {
    const store = await openEtcdStore({ client: on, prefix, endpoints: etcd.endpoints, ...options });
    opened.push(store);
    return store;
  };

  const harness: StoreHarness = {
    name: "etcd",
    skip: ETCD_SKIP,
    open: async (options) => {
      prefix = `/conformance-${process.pid}-${++tests}/`;
      current = await open(client, options);
      return current;
    },
    reopen: async (options) => {
      await current?.close();
      current = await open(client, options);
      return current;
    },
    second: () => open(followerClient),
    contended: () => open(contendedEtcdClient(followerClient, touchClient)),
    guardable: async () => {
      const key = `${prefix.slice(0, -1)}-election/leader`;
      await client.put(key).value("replica-a");
      const createRevision = async () => (await client.get(key).exec()).kvs[0]?.create_revision ?? "0";
      const guard = { key, createRevision: await createRevision() };
      return {
        guard: { current: () => guard },
        depose: async () => {
          // Another replica won: the election key is there again, made anew.
          await client.delete().key(key);
          await client.put(key).value("replica-b");
        },
      };
    },
    corruptPollRecords: async () => {
      await current?.close();
      current = null;
      for (const key of await client.getAll().prefix(`${prefix}records/`).keys()) await client.put(key).value('{"v":1,"body":"AAAA"}');
    },
    cleanup: async () => {
      await Promise.all(opened.map((s) => s.close()));
      opened = [];
      current = null;
    },
  };

  storeConformance(harness);
});
