import { after, before, describe } from "node:test";
import type { Etcd3 } from "etcd3";
import { EtcdKvDriver } from "../../../src/store/kv/etcd/etcd-kv-driver.js";
import { SILENT_LOG } from "../../../src/support/log.js";
import { testEtcdClient } from "../../support/etcd-clients.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../../support/test-etcd.js";
import { driverContract } from "./driver-contract-cases.js";

/** The driver contract on a real single-member etcd, each case on a fresh prefix (the cases run one at a time). */
describe("the etcd key-value driver", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let opened = 0;
  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
  });

  const driverOn = (): EtcdKvDriver =>
    new EtcdKvDriver({
      client,
      probeKey: "/probe",
      endpoints: etcd.endpoints,
      timeoutMs: 5_000,
      limits: { maxTxnOps: 128, maxRequestBytes: 1.5 * 1024 * 1024 },
      log: SILENT_LOG,
    });

  driverContract("etcd", { keepsRevisions: true }, async () => {
    const prefix = `/contract-${process.pid}-${++opened}/`;
    let driver = driverOn();
    return {
      get driver() {
        return driver;
      },
      prefix,
      async reopen() {
        await driver.close();
        driver = driverOn();
        return driver;
      },
      async dispose() {
        await driver.close();
        await client.delete().prefix(prefix);
      },
    };
  });
});
