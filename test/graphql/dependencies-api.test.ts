import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";
import { subscribe } from "../support/ws-subscriber.js";

const DEPENDENCIES = "{ dependencies { name up downSince failures error lastFailed lastWorked } }";
const NOW = Date.parse("2026-11-27T03:00:00Z");
const AT = "2026-11-27T03:00:00Z";

interface Dependency {
  name: string;
  up: boolean;
  downSince: string | null;
  failures: number;
  error: string | null;
  lastFailed: string | null;
  lastWorked: string | null;
}

describe("dependencies: sabakan and Kubernetes as kintsugi's own calls saw them", () => {
  it(
    "says not asked before any call, up once a call worked, and down since the first failed call, with its error, told to subscribers",
    { timeout: 120_000 },
    async () => {
      const sabakan = await startFakeSabakan();
      sabakan.addMachine({ serial: "m1", rack: 0, ipv4: ["10.0.0.1"] });
      const kube = await startFakeKubeApi();
      const k = await startTestKintsugi(
        {
          sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 },
          kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 5 },
        },
        { startSchedule: false, now: () => NOW },
      );
      const read = async () => {
        const answer = await k.gql<{ dependencies: Dependency[] }>(DEPENDENCIES);
        assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
        return answer.data!.dependencies;
      };
      const events = subscribe<{ dependencyEvents: { name: string; up: boolean; downSince: string | null } }>(
        k.url,
        "subscription { dependencyEvents { name up downSince } }",
      );
      try {
        await events.ready;
        const notAsked = { up: false, downSince: null, failures: 0, error: null, lastFailed: null, lastWorked: null };
        assert.deepEqual(await read(), [
          { name: "sabakan", ...notAsked },
          { name: "kubernetes", ...notAsked },
        ]);

        // A poll asks sabakan for machines and Kubernetes for nodes.
        const polled = await k.gql(`mutation { runAutoRepair { error } }`);
        assert.equal(polled.data?.["runAutoRepair"].error, null, JSON.stringify(polled));
        const up = { up: true, downSince: null, failures: 0, error: null, lastFailed: null, lastWorked: AT };
        assert.deepEqual(await read(), [
          { name: "sabakan", ...up },
          { name: "kubernetes", ...up },
        ]);

        await sabakan.close();
        await kube.close();
        const failed = await k.gql(`mutation { runAutoRepair { error } }`);
        assert.match(failed.data?.["runAutoRepair"].error ?? "", /sabakan/);
        // The gateway's forwarded query is a call too: one more failure of the same run.
        const forwarded = await k.gql(`{ searchMachines { spec { serial } } }`);
        assert.notEqual(forwarded.errors, undefined);
        const [s, kub] = await read();
        assert.deepEqual({ ...s!, error: null }, { name: "sabakan", up: false, downSince: AT, failures: 2, error: null, lastFailed: AT, lastWorked: AT });
        assert.match(s!.error ?? "", /unreachable/);
        // The poll stops at sabakan's failure; Kubernetes is not asked until a repair pass or a later poll lists nodes.
        assert.deepEqual(kub, { name: "kubernetes", ...up });
        const downs = await events.waitFor(1);
        assert.deepEqual(downs, [{ dependencyEvents: { name: "sabakan", up: false, downSince: AT } }]);
      } finally {
        await events.close();
        await k.dispose();
        // Already closed when the test got that far; closing again is harmless.
        await Promise.allSettled([sabakan.close(), kube.close()]);
      }
    },
  );

  it("a repair pass that cannot list the nodes marks Kubernetes down", { timeout: 120_000 }, async () => {
    const kube = await startFakeKubeApi();
    const k = await startTestKintsugi({ kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 5 } }, { startRunner: true, now: () => NOW });
    try {
      await until(
        "a repair pass listed the nodes",
        async () => (await k.gql(DEPENDENCIES)).data?.["dependencies"][0],
        (d) => d?.up === true,
      );
      await kube.close();
      // A new entry wakes the runner, whose pass lists the nodes.
      const added = await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.9") { index } }`);
      assert.equal(added.errors, undefined, JSON.stringify(added.errors));
      const down = await until(
        "Kubernetes is down",
        async () => (await k.gql(DEPENDENCIES)).data?.["dependencies"][0],
        (d) => d?.downSince === AT,
      );
      assert.equal(down.name, "kubernetes");
      assert.equal(down.up, false);
      assert.ok(down.error, "the error is told");
    } finally {
      await k.dispose();
      await Promise.allSettled([kube.close()]);
    }
  });
});
