import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCliInProcess } from "../support/in-process-cli.js";
import { until, withBridge, type Receiver } from "../support/alert-bridge-world.js";

const messagesFor = (r: Receiver, address: string) => r.titles().filter((t) => t.includes(`${address} `) || t.endsWith(address));

describe("kintsugi alerts (the real binary, a real kintsugi, a local webhook)", () => {
  it("posts one message per meaningful event, naming who deleted an unfinished entry, and nothing for creations, notes, deletions of finished entries or dequeues", () =>
    withBridge({}, async (w, r, b) => {
      const seen = (n: number) => () => r.messages.length >= n;
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      w.kube.addNode({ name: "node1", internalIP: "10.0.0.1" });
      w.kube.addPod({ namespace: "db", name: "mysql-0", nodeName: "node1", controllerKind: "StatefulSet" });
      w.kube.refuseEviction("db", "mysql-0", "would violate the disruption budget");
      await w.add("drain-fix", "10.0.0.1");
      await w.add("fix", "10.0.0.2");
      await w.add("fail", "10.0.0.3");
      await until("six entry messages", seen(6), why);

      w.sabakan.failWithStatus(503, undefined, 3);
      for (let i = 0; i < 3; i++) await w.gql(`mutation { runAutoRepair { sequence } }`);
      await until("the failing-polls message", seen(7), why);
      await w.gql(`mutation { runAutoRepair { sequence } }`);
      await until("the recovery message", seen(8), why);
      w.sabakan.addMachine({ serial: "s1", rack: 0, ipv4: ["10.9.0.1"], bmcType: "m", state: "UNHEALTHY" });
      for (let i = 0; i < 2; i++) await w.gql(`mutation { runAutoRepair { sequence } }`);
      await until("the short-circuit message", seen(9), why);

      await w.gql(`mutation { deleteUnfinishedRepairEntries { index } deleteFinishedRepairEntries { index } }`);
      await until("an empty queue", async () => (await w.gql(`{ searchRepairEntries { index } }`))["searchRepairEntries"].length === 0, why);
      // Events arrive in commit order: once the last entry's failure is posted, anything before it was too.
      await w.add("fail", "10.0.0.4");
      await until("the last entry's messages", seen(12), why);

      // Only 10.0.0.1 was unfinished when deleted; the server's anonymous clients are admins, named "anonymous".
      assert.deepEqual(messagesFor(r, "10.0.0.1"), [
        "repair started: 10.0.0.1 (node1)",
        "drain backed off: 10.0.0.1 (node1)",
        "entry 1 for 10.0.0.1 (node1) deleted by anonymous",
      ]);
      assert.deepEqual(messagesFor(r, "10.0.0.2"), ["repair started: 10.0.0.2", "repair succeeded: 10.0.0.2"]);
      assert.deepEqual(messagesFor(r, "10.0.0.3"), ["repair started: 10.0.0.3", "repair failed: 10.0.0.3"]);
      assert.deepEqual(messagesFor(r, "10.0.0.4"), ["repair started: 10.0.0.4", "repair failed: 10.0.0.4"]);
      assert.deepEqual(
        r.titles().filter((t) => t.startsWith("auto-repair")),
        [
          "auto-repair: 3 sabakan polls failed in a row",
          "auto-repair: sabakan polls succeed again",
          "auto-repair defers 1 machine: 1 in rack 0 over maximum-repair-queue-entries",
        ],
      );
      assert.equal(r.messages.length, 12, why());
      const failed = r.messages.find((m) => m.title === "repair failed: 10.0.0.3");
      assert.equal(failed?.text, "step 1: repair command failed: exit code 3; stderr: BMC of 10.0.0.3 does not answer", "the reason says why");
      assert.match(failed?.fields["detail"] ?? "", /stderr: BMC of 10\.0\.0\.3 does not answer/);
      assert.equal(failed?.severity, "critical");
      assert.match(r.messages.find((m) => m.title.startsWith("drain backed off"))?.text ?? "", /^drain failed: dry-run eviction of db\/mysql-0 was refused/);
      const { time, ...counts } = r.messages.find((m) => m.title.startsWith("auto-repair defers"))?.fields ?? {};
      assert.deepEqual(counts, {
        deferred: "1",
        racks: "0",
        "existing entries": "3",
        candidates: "1",
        limit: "0",
        "machines seen": "1",
        poll: "5",
        trigger: "operator",
      });
      assert.match(time ?? "", /^\d{4}-\d\d-\d\dT/);
      assert.ok(r.messages.every((m) => m.source === "kintsugi"));
    }));

  it("posts new cluster configurations, a failed generation once, and its recovery", () =>
    withBridge({}, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      for (let rack = 1; rack <= 3; rack++) w.sabakan.addMachine({ serial: `c${rack}`, rack, ipv4: [`10.8.${rack}.1`] });
      await w.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, {
        t: "name: c\nnodes:\n- user: u\n  control_plane: true\n- user: u\nservice_subnet: 10.68.0.0/16\n",
      });
      await until("the generation message", () => r.messages.length >= 1, why);
      w.sabakan.failWithStatus(503, undefined, 2);
      for (let i = 0; i < 3; i++) await w.gql(`mutation { runClusterGeneration { outcome } }`);
      // Messages are posted in event order: the recovery's being third shows the repeated failure was not posted.
      await until("the recovery message", () => r.messages.length >= 3, why);
      assert.deepEqual(r.titles(), [
        "cluster configuration generation 1: 3 changes",
        "cluster generation failed: generation 1 stays in force",
        "cluster generation works again",
      ]);
      assert.match(r.messages[0]?.text ?? "", /^initialize the cluster from the template: 2 nodes\nadd control plane 10\.8\.\d\.1/);
      assert.match(r.messages[1]?.text ?? "", /answered HTTP 503/);
      assert.equal(r.messages[1]?.severity, "warning");
    }));

  it("retries a failed post with back-off and delivers each message once, in order", () =>
    withBridge({ failFirst: 2 }, async (w, r, b) => {
      await w.add("fail", "10.0.0.3");
      await until(
        "both messages",
        () => r.messages.length >= 2,
        () => b.stderr(),
      );
      assert.deepEqual(r.titles(), ["repair started: 10.0.0.3", "repair failed: 10.0.0.3"]);
      assert.equal(r.attempts.length, 4, "two refused attempts, then one for each message");
      assert.equal(r.attempts[0], r.attempts[2], "the refused message was sent again, before the next one");
      assert.equal(r.attempts[1], r.attempts[2]);
      assert.match(b.stderr(), /webhook post failed \(HTTP 500: try later\); retrying in 0\.5s/);
    }));

  it("reconnects after kintsugi restarts, says events may have been missed, and alerts on new events", () =>
    withBridge({}, async (w, r, b) => {
      const why = () => `${JSON.stringify(r.titles(), null, 1)}\n${b.stderr()}`;
      await w.add("fail", "10.0.0.3");
      await until("the first entry's messages", () => r.messages.length >= 2, why);
      await w.restart();
      const missed = await until("the missed-events message", () => r.messages.find((m) => m.title === "kintsugi alerts may have missed events"), why);
      const server = w.k.url.replace(/[.]/g, "\\.");
      assert.match(
        missed.text,
        new RegExp(
          `^kintsugi alerts: reconnected to ${server} after \\d+s; events between \\S+Z and \\S+Z may have been missed — check \`kintsugi repair-queue list\`$`,
        ),
      );
      await w.add("fail", "10.0.0.5");
      await until("the new entry's messages", () => r.messages.length >= 5, why);
      assert.deepEqual(r.titles(), [
        "repair started: 10.0.0.3",
        "repair failed: 10.0.0.3",
        "kintsugi alerts may have missed events",
        "repair started: 10.0.0.5",
        "repair failed: 10.0.0.5",
      ]);
      assert.match(b.stderr(), /connection to ws:\/\/127\.0\.0\.1:\d+\/graphql lost/);
    }));

  it("alerts only on the entries --having selects", () =>
    withBridge({ args: ["--having", '{"addresses":["10.0.0.5"],"statuses":["FAILED"]}'] }, async (w, r, b) => {
      const other = await w.add("fail", "10.0.0.4");
      await until(
        "the other entry to fail",
        async () => (await w.status(other)) === "FAILED",
        () => b.stderr(),
      );
      await w.add("fail", "10.0.0.5");
      await until(
        "the selected entry's failure",
        () => r.messages.length >= 1,
        () => b.stderr(),
      );
      assert.deepEqual(r.titles(), ["repair failed: 10.0.0.5"], "nothing for 10.0.0.4, nothing but FAILED for 10.0.0.5");
    }));

  it("refuses bad options with a clear message and a non-zero exit code", async () => {
    const base = ["--server", "http://127.0.0.1:9", "alerts"];
    const hook = ["--webhook", "http://127.0.0.1:9/hook"];
    const cases: Array<[string, string[], RegExp]> = [
      ["--having is not JSON", [...hook, "--having", "{bad"], /option '--having <JSON>' argument '\{bad' is invalid\. not valid JSON/],
      [
        "--having has an unknown key",
        [...hook, "--having", '{"status":["FAILED"]}'],
        /unknown key "status"; expected statuses, addresses, machineTypes, operations/,
      ],
      [
        "--having has a lower-case status",
        [...hook, "--having", '{"statuses":["failed"]}'],
        /"statuses": invalid value "failed"; expected QUEUED, PROCESSING, SUCCEEDED, FAILED \(upper-case\)/,
      ],
      ["--having has a bad address", [...hook, "--having", '{"addresses":["10.0.0.300"]}'], /"addresses": invalid value "10\.0\.0\.300"/],
      ["--webhook is missing", [], /required option '--webhook <URL>' not specified/],
      ["--webhook is not http", ["--webhook", "ftp://example.com/hook"], /must be an http:\/\/ or https:\/\/ URL/],
      ["--format is unknown", [...hook, "--format", "teams"], /Allowed choices are slack, mattermost, json/],
    ];
    const results = await Promise.all(cases.map(([, args]) => runCliInProcess([...base, ...args])));
    cases.forEach(([name, , expected], i) => {
      const result = results[i];
      assert.notEqual(result?.code, 0, name);
      assert.match(result?.stderr ?? "", expected, name);
    });
  });
});
