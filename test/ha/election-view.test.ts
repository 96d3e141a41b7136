import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Etcd3 } from "etcd3";
import { SHOWN_NAME_LIMIT, shownName } from "../../src/ha/election-view.js";
import { testEtcdClient } from "../support/etcd-clients.js";
import { startReplica, testPrefix, type ElectionReplica } from "../support/election-replica.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

describe("shownName: the name in an election key, as kintsugi shows it", () => {
  const cases: Array<{ name: string; value: Buffer; shown: string }> = [
    { name: "a replica name as configured", value: Buffer.from("boot-1"), shown: "boot-1" },
    { name: "exactly the longest name", value: Buffer.from("b".repeat(SHOWN_NAME_LIMIT)), shown: "b".repeat(SHOWN_NAME_LIMIT) },
    { name: "a longer name is cut, with an ellipsis", value: Buffer.from("b".repeat(SHOWN_NAME_LIMIT + 1)), shown: `${"b".repeat(SHOWN_NAME_LIMIT)}…` },
    { name: "a megabyte is cut too", value: Buffer.alloc(1024 * 1024, "x"), shown: `${"x".repeat(SHOWN_NAME_LIMIT)}…` },
    { name: "a terminal escape is shown escaped", value: Buffer.from("boot-1\x1b[2J\x1b]0;owned\x07"), shown: "boot-1\\x1b[2J\\x1b]0;owned\\x07" },
    { name: "a forged line is shown escaped", value: Buffer.from("boot-1\nkintsugi: all is well"), shown: "boot-1\\x0akintsugi: all is well" },
    { name: "a C1 control and a bidi override are shown escaped", value: Buffer.from("boot-\u009b1\u202e2"), shown: "boot-\\x9b1\\u202e2" },
    { name: "multi-byte characters are counted as characters", value: Buffer.from("é".repeat(SHOWN_NAME_LIMIT)), shown: "é".repeat(SHOWN_NAME_LIMIT) },
  ];
  for (const { name, value, shown } of cases) {
    it(name, () => assert.equal(shownName(value), shown));
  }
});

describe("ElectionView on a real etcd: a key another process wrote under the election prefix", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let replica: ElectionReplica | null = null;
  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
  });
  after(async () => {
    await replica?.stop();
    client?.close();
    await etcd?.stop();
  });

  it("names its writer as the leader escaped and cut, so /health and NOT_LEADER cannot be forged or flooded with it", async () => {
    const prefix = testPrefix();
    // Created before any replica joins, so it leads (lowest create revision) for as long as it stays.
    await client.put(`${prefix}leader/0`).value(`\x1b[31mboot-9\n${"y".repeat(100_000)}`);
    replica = startReplica(etcd.endpoints, prefix, "boot-1", 10);
    const leader = await until(
      "the replica sees the foreign key lead",
      () => replica?.election.leader() ?? null,
      (name) => name !== null,
    );
    assert.equal(leader, `\\x1b[31mboot-9\\x0a${"y".repeat(SHOWN_NAME_LIMIT - "\x1b[31mboot-9\n".length)}…`);
    assert.equal(replica.election.isLeader(), false);
  });
});
