import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { untilTruthy } from "../support/until.js";

const TEMPLATE = "name: c\nnodes:\n- user: u\n  control_plane: true\n- user: u\nservice_subnet: 10.68.0.0/16\n";
const RECORD = "generation trigger changes nodes { address controlPlane }";

interface Cluster {
  generation: number;
  trigger: string;
  changes: string[];
  nodes: Array<{ address: string; controlPlane: boolean }>;
}
const cps = (c: Cluster) =>
  c.nodes
    .filter((n) => n.controlPlane)
    .map((n) => n.address)
    .sort();

/**
 * The control-plane grace end to end: the test sabakan's status.timestamp through the real graphql-request client,
 * CKE's reboot annotation from the test Kubernetes API, the constraint set over GraphQL, and a clock both share.
 * No cluster schedule runs, so a round with trigger SCHEDULE is the generator waking at the grace's end.
 */
describe("control-plane replacement waits out its grace and planned reboots (test sabakan, test Kubernetes)", () => {
  let sabakan: FakeSabakan;
  let kube: FakeKubeApi;
  let k: TestKintsugi;
  let clock = Date.UTC(2026, 10, 22, 6, 0, 0);
  const current = async () => (await k.gql(`{ generatedCluster { ${RECORD} } }`)).data?.["generatedCluster"] as Cluster;
  const run = async () => (await k.gql(`mutation { runClusterGeneration { outcome } }`)).data?.["runClusterGeneration"].outcome as string;
  const serialAt = (address: string) => sabakan.machines().find((m) => m.ipv4[0] === address)?.serial as string;
  before(async () => {
    sabakan = await startFakeSabakan({ now: () => clock });
    kube = await startFakeKubeApi();
    for (const rack of [1, 2, 3]) for (const i of [1, 2]) sabakan.addMachine({ serial: `cs-${rack}-${i}`, rack, indexInRack: i, ipv4: [`10.${rack}.0.${i}`] });
    k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1024 * 1024 },
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        constraints: { controlPlaneCount: 3, minimumWorkers: 1 },
      },
      { now: () => clock, startSchedule: false, startClusterSchedule: false },
    );
    await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, { t: TEMPLATE });
    await untilTruthy("generation 1", async () => (await current())?.generation === 1);
  });
  after(async () => {
    await k.dispose();
    await kube.close();
    await sabakan.close();
  });

  it("keeps an UNREACHABLE control plane within the grace, and replaces it when the grace ends, waking by itself", async () => {
    const set = await k.gql(`mutation { setConstraint(name: "wait-seconds-to-replace-control-plane", value: 2) { waitSecondsToReplaceControlPlane } }`);
    assert.deepEqual(set.data?.["setConstraint"], { waitSecondsToReplaceControlPlane: 2 });
    const first = await current();
    const victim = cps(first)[0] as string;
    sabakan.setState(serialAt(victim), "UNREACHABLE", clock - 1000);
    assert.equal(await run(), "UNCHANGED", "1 s of 2: kept");
    assert.deepEqual(cps(await current()), cps(first));

    clock += 2000; // 3 s now: past the grace. Nothing but the generator's own recheck starts a round.
    const next = await untilTruthy("the replacement", async () => {
      const c = await current();
      return c.generation > first.generation && c;
    });
    assert.equal(next.trigger, "SCHEDULE");
    assert.ok(!cps(next).includes(victim), "the control plane was replaced");
    assert.equal(cps(next).length, 3);
    assert.ok(
      next.changes.some((c) => c.startsWith(`change control plane ${victim} `) && c.endsWith("machine is UNREACHABLE for 3 s (> 2 s)")),
      next.changes.join("\n"),
    );
  });

  it("never replaces a control plane whose Node carries cke.cybozu.com/reboot, and does once the reboot is over", async () => {
    const before = await current();
    const rebooting = cps(before)[0] as string;
    kube.addNode({ name: rebooting, internalIP: rebooting, annotations: { "cke.cybozu.com/reboot": "true" } });
    sabakan.setState(serialAt(rebooting), "UNREACHABLE", clock - 3_600_000);
    assert.equal(await run(), "UNCHANGED", "an hour past the 2 s grace, but a planned reboot");
    assert.deepEqual(cps(await current()), cps(before));

    kube.removeNode(rebooting);
    kube.addNode({ name: rebooting, internalIP: rebooting });
    assert.equal(await run(), "GENERATED");
    const after = await current();
    assert.ok(!cps(after).includes(rebooting), "replaced once the annotation is gone");
    assert.ok(
      after.changes.some((c) => c.startsWith(`change control plane ${rebooting} `) && c.endsWith("machine is UNREACHABLE for 3600 s (> 2 s)")),
      after.changes.join("\n"),
    );
  });
});
