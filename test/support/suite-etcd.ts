import { after, before } from "node:test";
import type { Etcd3 } from "etcd3";
import { testEtcdClient } from "./etcd-clients.js";
import { startTestEtcd, type TestEtcd } from "./test-etcd.js";

/** A real one-member etcd and a client of it, shared by the tests of one suite; each test takes a prefix of its own. */
export interface SuiteEtcd {
  readonly etcd: TestEtcd;
  readonly client: Etcd3;
  /** A prefix no earlier test of the suite used: `/<label>-<n>/`. */
  freshPrefix(): string;
}

/**
 * Call inside a `describe` (with `skip: ETCD_SKIP`): starts the etcd and its client before the suite's tests and
 * stops both after them. `etcd` and `client` can be read from the tests and hooks on.
 */
export function suiteEtcd(label: string): SuiteEtcd {
  let etcd: TestEtcd | undefined;
  let client: Etcd3 | undefined;
  let prefixes = 0;
  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the suite's etcd is only there once its before hook ran");
    return value;
  };
  return {
    get etcd() {
      return started(etcd);
    },
    get client() {
      return started(client);
    },
    freshPrefix: () => `/${label}-${++prefixes}/`,
  };
}
