import { afterEach } from "node:test";
import { openEtcdStore } from "../../src/store/kv/etcd/open-etcd-store.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { logTo } from "../../src/support/log.js";
import type { SuiteEtcd } from "./suite-etcd.js";

/** One line an etcd store logged. */
export interface LoggedLine {
  readonly level: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/**
 * Call inside a `describe` with a {@link SuiteEtcd}: `open(prefix)` opens an etcd store on the suite's etcd whose
 * log lines all land in `logged` (to check what a hostile value made it say); each test's stores close after it.
 */
export function loggingEtcdStores(suite: SuiteEtcd): { readonly logged: LoggedLine[]; open(prefix: string): Promise<KintsugiStore> } {
  let stores: KintsugiStore[] = [];
  const logged: LoggedLine[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });
  return {
    logged,
    async open(prefix) {
      const store = await openEtcdStore({
        client: suite.client,
        endpoints: suite.etcd.endpoints,
        prefix,
        log: logTo((level, message, fields) => logged.push({ level, message, fields })),
      });
      stores.push(store);
      return store;
    },
  };
}
