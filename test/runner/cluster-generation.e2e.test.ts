import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { subscribe } from "../support/ws-subscriber.js";
import { until, untilTruthy } from "../support/until.js";

const DAY = 86_400_000;
/** DateTime as kintsugi writes it: RFC 3339 without fractional seconds. */
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const TEMPLATE = `# kept verbatim, comments and all
name: prod
nodes:
- user: cybozu
  control_plane: true
  labels:
    cke.cybozu.com/role: cs
- user: cybozu
  control_plane: false
  labels:
    cke.cybozu.com/role: cs
    cke.cybozu.com/weight: "3"
  taints:
  - key: example.com/dedicated
    value: batch
    effect: PreferNoSchedule
- user: cybozu
  control_plane: false
  labels:
    cke.cybozu.com/role: ss
service_subnet: 10.68.0.0/16
options:
  kubelet:
    cgroup_driver: systemd
`;

const CLUSTER = `generation yaml changes generatedAt trigger
  nodes { address user controlPlane labels { name value } annotations { name value } taints { key value effect } }`;
const RECORD = `sequence outcome generation time lastTime repeats trigger changes error cluster { generation }`;

interface Node {
  address: string;
  controlPlane: boolean;
  labels: Array<{ name: string; value: string }>;
  annotations: Array<{ name: string; value: string }>;
  taints: Array<{ key: string; value: string | null; effect: string }>;
}
const label = (n: Node, name: string) => n.labels.find((l) => l.name === name)?.value;

/**
 * Cluster generation end to end: kintsugi over HTTP and WebSocket, a real SQLite file, the graphql-request client
 * against the test sabakan built from sabakan's schema, and Node taints from the test Kubernetes API server.
 */
describe("cluster generation over GraphQL (test sabakan, test Kubernetes, SQLite)", () => {
  let sabakan: FakeSabakan;
  let kube: FakeKubeApi;
  let k: TestKintsugi;
  const now = Date.UTC(2026, 10, 22, 6, 0, 0);
  const sabakanConfig = () => ({ url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 1, maxResponseBytes: 1024 * 1024 });
  const current = async () => (await k.gql(`{ generatedCluster { ${CLUSTER} } }`)).data?.["generatedCluster"];
  const history = async () => (await k.gql(`{ clusterGenerations { ${RECORD} } }`)).data?.["clusterGenerations"] as Array<Record<string, any>>;
  const run = async () => k.gql(`mutation { runClusterGeneration { outcome record { ${RECORD} } cluster { generation } } }`);
  before(async () => {
    sabakan = await startFakeSabakan({ now: () => now });
    kube = await startFakeKubeApi();
    // Three racks of cs machines (one of them old), two ss machines, a boot server and a retired machine.
    for (const rack of [1, 2, 3]) {
      for (const i of [1, 2, 3]) {
        sabakan.addMachine({
          serial: `cs-${rack}-${i}`,
          rack,
          indexInRack: i,
          role: "cs",
          ipv4: [`10.${rack}.0.${i}`],
          labels: { product: "vm" },
          registerDate: now - 100 * DAY,
          retireDate: now + (rack === 3 && i === 1 ? 100 : 2000) * DAY,
        });
      }
    }
    sabakan.addMachine({ serial: "ss-1", rack: 1, indexInRack: 9, role: "ss", ipv4: ["10.1.0.9"] });
    sabakan.addMachine({ serial: "ss-2", rack: 2, indexInRack: 9, role: "ss", ipv4: ["10.2.0.9"] });
    sabakan.addMachine({ serial: "boot-1", rack: 1, indexInRack: 0, role: "boot", ipv4: ["10.1.0.100"] });
    sabakan.addMachine({ serial: "old-1", rack: 2, indexInRack: 8, role: "cs", ipv4: ["10.2.0.8"], state: "RETIRED" });
    // The newest-looking machine of rack 1 carries a taint nobody tolerates: it must not become a control plane.
    kube.addNode({ name: "10.1.0.1", internalIP: "10.1.0.1", taints: [{ key: "example.com/broken", effect: "NoSchedule" }] });
    k = await startTestKintsugi(
      {
        sabakan: sabakanConfig(),
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        constraints: { controlPlaneCount: 3, minimumWorkers: 4 },
      },
      { now: () => now, startSchedule: false, startClusterSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await kube.close();
    await sabakan.close();
  });

  it("refuses to run without a template, and has no configuration yet", async () => {
    const r = await run();
    assert.equal(r.errors?.[0]?.extensions?.type, "CLUSTER_GENERATION_UNAVAILABLE");
    assert.match(r.errors?.[0]?.message ?? "", /no cluster template is set/);
    assert.equal(await current(), null);
    assert.deepEqual(await history(), []);
  });

  it("rejects an invalid template with every broken rule named, and stores nothing", async () => {
    const r = await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, {
      t: "name: ''\nnodes:\n- user: a\n  control_plane: false\n  address: 10.0.0.1\nservice_subnet: 10.68.0.0/33\n",
    });
    assert.equal(r.errors?.[0]?.extensions?.type, "INVALID_CLUSTER_TEMPLATE");
    const message = r.errors?.[0]?.message ?? "";
    for (const part of [/name/, /service_subnet/, /at least two node templates/, /control plane/, /nodes\[0\].*address/]) assert.match(message, part);
    assert.equal((await k.gql(`{ clusterTemplate { template } }`)).data?.["clusterTemplate"], null);
  });

  it("generates generation 1 from a new template: control planes spread over racks, weights, labels, taints", async () => {
    const events = subscribe<{ clusterGenerated: Record<string, any> }>(k.url, `subscription { clusterGenerated { ${RECORD} } }`);
    await events.ready;
    const set = await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name setAt template } }`, { t: TEMPLATE });
    assert.equal(set.errors, undefined);
    assert.deepEqual(set.data?.["setClusterTemplate"], { name: "prod", setAt: rfc3339(now), template: TEMPLATE });

    const cluster = await untilTruthy("generation 1", current);
    assert.equal(cluster.generation, 1);
    assert.equal(cluster.trigger, "TEMPLATE");
    assert.equal(cluster.generatedAt, rfc3339(now));
    const nodes = cluster.nodes as Node[];
    const cps = nodes.filter((n) => n.controlPlane);
    assert.equal(cps.length, 3);
    assert.deepEqual(cps.map((n) => label(n, "cke.cybozu.com/rack")).sort(), ["1", "2", "3"], "one control plane per rack");
    assert.ok(!cps.some((n) => n.address === "10.1.0.1"), "the tainted node is no control plane");
    assert.ok(!cps.some((n) => n.address === "10.3.0.1"), "the machine retiring in 100 days is no control plane");
    for (const n of nodes) {
      assert.notEqual(n.address, "10.1.0.100", "boot servers are excluded by the default variables");
      assert.notEqual(n.address, "10.2.0.8", "retired machines are excluded by the default variables");
    }
    const workers = nodes.filter((n) => !n.controlPlane);
    assert.equal(workers.length, 4);
    const roles = workers.map((n) => label(n, "cke.cybozu.com/role")).sort();
    assert.deepEqual(roles, ["cs", "cs", "cs", "ss"], "weights 3:1 over 4 workers");
    const cp = cps[0] as Node;
    assert.equal(label(cp, "sabakan.cke.cybozu.com/product"), "vm");
    assert.equal(label(cp, "node-role.kubernetes.io/control-plane"), "true");
    assert.equal(cp.annotations.find((a) => a.name === "cke.cybozu.com/serial")?.value?.startsWith("cs-"), true);
    const csWorker = workers.find((n) => label(n, "cke.cybozu.com/role") === "cs") as Node;
    assert.deepEqual(csWorker.taints, [{ key: "example.com/dedicated", value: "batch", effect: "PreferNoSchedule" }]);
    assert.equal(cluster.changes[0], "initialize the cluster from the template: 7 nodes");
    assert.ok(
      cluster.changes.some((c: string) => /^add control plane 10\.\d\.0\.\d \(serial cs-\d-\d\)/.test(c)),
      cluster.changes.join("\n"),
    );

    const yaml = parseYaml(cluster.yaml);
    assert.equal(yaml.name, "prod");
    assert.equal(yaml.service_subnet, "10.68.0.0/16");
    assert.deepEqual(yaml.options, { kubelet: { cgroup_driver: "systemd" } }, "cluster-wide keys pass through");
    assert.deepEqual(
      yaml.nodes.map((n: { address: string }) => n.address),
      nodes.map((n) => n.address),
    );
    assert.equal(yaml.nodes[0].control_plane, true);
    assert.equal(yaml.nodes[0].user, "cybozu");

    const [event] = await events.waitFor(1);
    assert.equal(event?.clusterGenerated.outcome, "GENERATED");
    assert.equal(event?.clusterGenerated.generation, 1);
    await events.close();
  });

  it("changes nothing when nothing changed, and keeps no record of the quiet round", async () => {
    const r = await run();
    assert.equal(r.errors, undefined);
    assert.deepEqual(r.data?.["runClusterGeneration"], { outcome: "UNCHANGED", record: null, cluster: { generation: 1 } });
    assert.equal((await history()).length, 1);
  });

  it("refuses a template that would drop the workers of a role in the configuration in force, keeping the stored one", async () => {
    const ssWorkers = ((await current()).nodes as Node[]).filter((n) => !n.controlPlane && label(n, "cke.cybozu.com/role") === "ss");
    assert.ok(ssWorkers.length > 0, "the configuration in force has ss workers");
    const withoutSs = TEMPLATE.replace("cke.cybozu.com/role: ss\n", "cke.cybozu.com/role: gpu\n");
    assert.notEqual(withoutSs, TEMPLATE);
    const r = await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, { t: withoutSs });
    assert.equal(r.errors?.[0]?.extensions?.type, "INVALID_CLUSTER_TEMPLATE");
    const message = r.errors?.[0]?.message ?? "";
    assert.match(message, /^cluster template not set: in the configuration in force, \d+ workers? (has|have) a role no node template takes \(role "ss": /);
    for (const n of ssWorkers) assert.ok(message.includes(n.address), message);
    assert.match(message, /kintsugi sabakan set-variables/);
    assert.equal((await k.gql(`{ clusterTemplate { template } }`)).data?.["clusterTemplate"].template, TEMPLATE);
    assert.equal((await current()).generation, 1);
  });

  it("taints a retiring machine's node in the next generation and says why", async () => {
    const worker = ((await current()).nodes as Node[]).find((n) => !n.controlPlane) as Node;
    const serial = worker.annotations.find((a) => a.name === "cke.cybozu.com/serial")?.value as string;
    sabakan.setState(serial, "RETIRING");
    const r = await run();
    assert.equal(r.data?.["runClusterGeneration"].outcome, "GENERATED");
    const cluster = await current();
    assert.equal(cluster.generation, 2);
    assert.equal(cluster.trigger, "OPERATOR");
    const node = (cluster.nodes as Node[]).find((n) => n.address === worker.address) as Node;
    assert.ok(node.taints.some((t) => t.key === "cke.cybozu.com/state" && t.value === "retiring" && t.effect === "NoExecute"));
    assert.ok(
      cluster.changes.some((c: string) => c.includes(worker.address) && /retiring/.test(c)),
      cluster.changes.join("\n"),
    );
  });

  it("records a failed round, keeps the configuration in force, and folds repeats into one record", async () => {
    const events = subscribe<{ clusterGenerated: Record<string, any> }>(k.url, `subscription { clusterGenerated { ${RECORD} } }`);
    await events.ready;
    sabakan.failWithStatus(503, "maintenance", 2);
    const first = (await run()).data?.["runClusterGeneration"];
    assert.equal(first.outcome, "FAILED");
    assert.match(first.record.error, /sabakan at .*answered HTTP 503/);
    assert.equal(first.record.generation, 2, "the generation in force is named");
    assert.deepEqual(first.cluster, { generation: 2 });
    const second = (await run()).data?.["runClusterGeneration"];
    assert.equal(second.record.sequence, first.record.sequence);
    assert.equal(second.record.repeats, 2);
    assert.equal((await current()).generation, 2, "the previous configuration stays");
    const [event] = await events.waitFor(1);
    assert.equal(event?.clusterGenerated.outcome, "FAILED");

    const recovered = (await run()).data?.["runClusterGeneration"];
    assert.equal(recovered.outcome, "UNCHANGED");
    assert.equal(recovered.record.outcome, "UNCHANGED", "the first good round after a failure is recorded");
    assert.equal(recovered.record.generation, 2);
    // Announcements come in order: the recovery's being second shows the repeated failure was not announced.
    assert.deepEqual(
      (await events.waitFor(2)).map((e) => e.clusterGenerated.outcome),
      ["FAILED", "UNCHANGED"],
      "a repeated failure is not announced again",
    );
    const quiet = (await run()).data?.["runClusterGeneration"];
    assert.deepEqual([quiet.outcome, quiet.record], ["UNCHANGED", null], "later quiet rounds are not");
    assert.deepEqual(
      (await history()).slice(-2).map((h) => [h.outcome, h.repeats]),
      [
        ["FAILED", 2],
        ["UNCHANGED", 1],
      ],
    );
    await events.close();
  });

  it("fails with 'not enough healthy machines' when the constraints cannot be met, changing nothing", async () => {
    const set = await k.gql(`mutation { setConstraint(name: "minimum-workers", value: 50) { minimumWorkers } }`);
    assert.equal(set.errors, undefined);
    // Changing a cluster constraint starts a round by itself.
    const failed = await untilTruthy("the failed round", async () => (await history()).find((h) => h.trigger === "SETTINGS"));
    assert.equal(failed.outcome, "FAILED");
    assert.match(failed.error, /not enough healthy machines: minimum-workers is 50/);
    assert.equal((await current()).generation, 2);
    await k.gql(`mutation { setConstraint(name: "minimum-workers", value: 4) { minimumWorkers } }`);
  });

  it("chooses machines by the operator's variables", async () => {
    const r = await k.gql(
      `mutation { setClusterVariables(notHaving: { roles: ["boot", "ss"], states: [RETIRED] }) { having { roles } notHaving { roles states } } }`,
    );
    assert.deepEqual(r.data?.["setClusterVariables"], { having: null, notHaving: { roles: ["boot", "ss"], states: ["RETIRED"] } });
    const cluster = await untilTruthy("a generation without ss machines", async () => {
      const c = await current();
      return c.generation > 2 && c;
    });
    assert.ok((cluster.nodes as Node[]).every((n) => label(n, "cke.cybozu.com/role") === "cs"));
    assert.ok(
      cluster.changes.some((c: string) => /remove/.test(c) && /10\.[12]\.0\.9/.test(c)),
      cluster.changes.join("\n"),
    );
    // Maintenance takes one action per round, as CKE's does: later rounds finish what this one started.
    let outcome = "";
    for (let i = 0; i < 5 && outcome !== "UNCHANGED"; i++) outcome = (await run()).data?.["runClusterGeneration"].outcome;
    assert.equal(outcome, "UNCHANGED", "the rounds converge");
    const bad = await k.gql(`mutation { setClusterVariables(having: { racks: [-1] }) { having { racks } } }`);
    assert.equal(bad.errors?.[0]?.extensions?.type, "INVALID_MACHINE_PARAMS");
  });

  it("runs nothing while disabled", async () => {
    await k.gql(`mutation { setClusterGenerationEnabled(enabled: false) }`);
    assert.equal((await k.gql(`{ clusterGenerationEnabled }`)).data?.["clusterGenerationEnabled"], false);
    const r = await run();
    assert.equal(r.errors?.[0]?.extensions?.type, "CLUSTER_GENERATION_UNAVAILABLE");
    assert.match(r.errors?.[0]?.message ?? "", /disabled/);
    await k.gql(`mutation { setClusterGenerationEnabled(enabled: true) }`);
  });

  it("regenerates at once when a machine's state changes through kintsugi, and keeps earlier generations readable", async () => {
    const before = await current();
    const worker = (before.nodes as Node[]).find((n) => !n.controlPlane && !n.taints.some((t) => t.key === "cke.cybozu.com/state")) as Node;
    const serial = worker.annotations.find((a) => a.name === "cke.cybozu.com/serial")?.value as string;
    const set = await k.gql(`mutation ($s: ID!) { setMachineState(serial: $s, state: RETIRING) { state } }`, { s: serial });
    assert.equal(set.errors, undefined);
    const next = await untilTruthy("the event's generation", async () => {
      const c = await current();
      return c.generation > before.generation && c;
    });
    assert.equal(next.trigger, "EVENT");
    assert.ok(
      next.changes.some((c: string) => c.includes(worker.address) && /retiring/.test(c)),
      next.changes.join("\n"),
    );
    const first = (await k.gql(`query { generatedCluster(generation: 1) { generation trigger } }`)).data?.["generatedCluster"];
    assert.deepEqual(first, { generation: 1, trigger: "TEMPLATE" });
    assert.equal((await k.gql(`query { generatedCluster(generation: 999) { generation } }`)).data?.["generatedCluster"], null);
    let outcome = "";
    for (let i = 0; i < 5 && outcome !== "UNCHANGED"; i++) outcome = (await run()).data?.["runClusterGeneration"].outcome;
  });

  it("keeps the template, the configuration and the history across a restart", async () => {
    const before = await current();
    const records = await history();
    k = await k.restart(
      {
        sabakan: sabakanConfig(),
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        constraints: { controlPlaneCount: 3, minimumWorkers: 4 },
      },
      { now: () => now, startSchedule: false, startClusterSchedule: false },
    );
    assert.deepEqual(await current(), before);
    assert.deepEqual(await history(), records);
    assert.equal((await k.gql(`{ clusterTemplate { template } }`)).data?.["clusterTemplate"].template, TEMPLATE);
    const r = await run();
    assert.equal(r.data?.["runClusterGeneration"].outcome, "UNCHANGED", "the reloaded configuration is the one in force");
  });
});

describe("cluster generation on its schedule", () => {
  it("regenerates on the schedule when sabakan's machines change", async () => {
    const now = Date.UTC(2026, 10, 22, 6, 0, 0);
    const sabakan = await startFakeSabakan({ now: () => now });
    for (let i = 1; i <= 3; i++) sabakan.addMachine({ serial: `m${i}`, rack: i, ipv4: [`10.${i}.0.1`] });
    const k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", clusterSchedule: "* * * * * *", timeoutSeconds: 1, maxResponseBytes: 1024 * 1024 } },
      { now: () => now, startSchedule: false },
    );
    try {
      await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, {
        t: "name: c\nnodes:\n- user: u\n  control_plane: true\n- user: u\nservice_subnet: 10.68.0.0/16\n",
      });
      const waitFor = (generation: number) =>
        until(
          `generation ${generation}`,
          async () => (await k.gql(`{ generatedCluster { generation trigger nodes { address } } }`)).data?.["generatedCluster"],
          (c) => c && c.generation >= generation,
          15_000,
        );
      const first = await waitFor(1);
      assert.equal(first.nodes.length, 2, "one control plane and one worker (the default constraints)");
      // The template's own round may still be pending behind a scheduled one that made generation 1: an operator's
      // round runs after both, so that the next generation can only come from the schedule.
      const settled = (await k.gql(`mutation { runClusterGeneration { outcome } }`)).data?.["runClusterGeneration"];
      assert.deepEqual(settled, { outcome: "UNCHANGED" });
      const worker = first.nodes[1].address as string;
      const serial = sabakan.machines().find((m) => m.ipv4[0] === worker)?.serial as string;
      sabakan.setState(serial, "RETIRED");
      const next = await waitFor(2);
      assert.equal(next.trigger, "SCHEDULE");
      assert.ok(!next.nodes.some((n: { address: string }) => n.address === worker), "the retired machine left the cluster");
      assert.equal(next.nodes.length, 2, "another machine took its place");
    } finally {
      await k.dispose();
      await sabakan.close();
    }
  });
});

describe("cluster generation rounds never overlap", () => {
  it("runs one more round after the one in flight when the template changes during it, with the newest template", async () => {
    const now = Date.UTC(2026, 10, 22, 6, 0, 0);
    const sabakan = await startFakeSabakan({ now: () => now });
    for (let i = 1; i <= 3; i++) sabakan.addMachine({ serial: `m${i}`, rack: i, ipv4: [`10.${i}.0.1`] });
    const k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1024 * 1024 } },
      { now: () => now, startSchedule: false, startClusterSchedule: false },
    );
    const template = (name: string) => `name: ${name}\nnodes:\n- user: u\n  control_plane: true\n- user: u\nservice_subnet: 10.68.0.0/16\n`;
    try {
      // The first round waits on a slow sabakan while three more templates arrive.
      sabakan.setLatency(2000, 1);
      for (const name of ["a", "b", "c", "d"]) {
        const r = await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, { t: template(name) });
        assert.equal(r.errors, undefined);
      }
      type GenerationRecord = { outcome: string; trigger: string; cluster: { yaml: string } | null };
      let records = await until(
        "a generation from the newest template",
        async (): Promise<GenerationRecord[]> => (await k.gql(`{ clusterGenerations { outcome trigger cluster { yaml } } }`)).data?.["clusterGenerations"],
        (rs) => rs.some((r) => r.cluster?.yaml.startsWith("name: d\n")),
        15_000,
      );
      // An operator's round runs after the round in flight and any pending one: once it is done, no round is left.
      const after = (await k.gql(`mutation { runClusterGeneration { outcome record { sequence } } }`)).data?.["runClusterGeneration"];
      assert.deepEqual(after, { outcome: "UNCHANGED", record: null });
      records = (await k.gql(`{ clusterGenerations { outcome trigger cluster { yaml } } }`)).data?.["clusterGenerations"];
      assert.deepEqual(
        records.map((r) => [r.outcome, r.trigger, r.cluster?.yaml.slice(0, 8)]),
        [
          ["GENERATED", "TEMPLATE", "name: a\n"],
          ["GENERATED", "TEMPLATE", "name: d\n"],
        ],
        "the round in flight finished with the template it read; the requests during it made one more round",
      );
    } finally {
      await k.dispose();
      await sabakan.close();
    }
  });
});
