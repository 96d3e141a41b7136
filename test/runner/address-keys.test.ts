import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterNode } from "../../src/adapters/ports.js";
import { nodeStandings } from "../../src/runner/auto-repair-poller.js";
import { rebootingByNode, taintsByNode } from "../../src/runner/generation-inputs.js";
import { nodeNamesByAddress } from "../../src/runner/gather-state.js";
import { machineTypesByAddress } from "../../src/runner/health-check-runner.js";

const node = (name: string, internalIPs: string[]): ClusterNode => ({
  name,
  internalIPs,
  unschedulable: false,
  annotations: {},
  labels: {},
  taints: [{ key: "t", effect: "NoSchedule" }],
  conditions: [],
});

// One Node with a mapped IPv6 InternalIP, one with hostile ones (an option, control characters, empty).
const NODES = [node("mapped", ["::ffff:10.0.0.3"]), node("evil", ["-rf", "10.0.0.9\u001b[2J", ""])];

describe("maps keyed by Node InternalIPs use canonical addresses and leave out what is not one", () => {
  const keysOf: Array<[string, (nodes: ClusterNode[]) => ReadonlyMap<string, unknown>]> = [
    ["nodeNamesByAddress (gather-state)", nodeNamesByAddress],
    ["nodeStandings (sabakan trigger)", nodeStandings],
    ["taintsByNode (cluster generation)", taintsByNode],
  ];
  for (const [name, build] of keysOf) {
    it(name, () => assert.deepEqual([...build(NODES).keys()].sort(), ["10.0.0.3", "evil", "mapped"]));
  }

  it("rebootingByNode (cluster generation's reboot guard)", () => {
    const rebooting = NODES.map((n) => ({ ...n, annotations: { "cke.cybozu.com/reboot": "true" } }));
    assert.deepEqual([...rebootingByNode(rebooting)].sort(), ["10.0.0.3", "evil", "mapped"]);
  });

  it("machineTypesByAddress (health checks): sabakan's first IPv4, canonical; a hostile one has no type", () => {
    const types = machineTypesByAddress([
      { ipv4: ["::ffff:10.0.0.3"], bmcType: "m" },
      { ipv4: ["-rf"], bmcType: "evil" },
      { ipv4: [], bmcType: "none" },
    ]);
    assert.deepEqual([...types], [["10.0.0.3", "m"]]);
  });
});
