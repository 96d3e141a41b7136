import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideGeneration } from "../../../src/domain/cluster/generation-decision.js";
import { generate } from "../../../src/domain/cluster/generate.js";
import type { ClusterMachine, GeneratedCluster, GenerationResult, Taint } from "../../../src/domain/cluster/types.js";
import { update } from "../../../src/domain/cluster/update.js";
import { MINIMAL, NOW, constraints, fleet } from "./support.js";

const SECOND = 1000;
const GRACE = 1800;
const FLEET = fleet(10, 5);
/** 3 control planes (racks 0, 1, 2) and 3 workers out of 10 machines in 5 racks. */
const BASE = ok(generate(MINIMAL, FLEET, constraints(3, 3), NOW));
const cpAddresses = (c: GeneratedCluster) => c.nodes.filter((n) => n.control_plane).map((n) => n.address);
const CPS = cpAddresses(BASE);
const WORKERS = BASE.nodes.filter((n) => !n.control_plane).map((n) => n.address);
const [CP0, CP1, CP2] = CPS as [string, string, string];
const serialOf = (address: string) => FLEET.find((m) => m.ipv4[0] === address)?.serial;

function ok(r: GenerationResult): GeneratedCluster {
  if (!r.ok) throw new Error(r.error);
  return r.cluster;
}
/** The fleet with the machines at the given addresses changed. */
function fleetWith(changes: Record<string, Partial<ClusterMachine>>): ClusterMachine[] {
  return FLEET.map((m) => ({ ...m, ...changes[m.ipv4[0] as string] }));
}
/** A machine state entered `seconds` before NOW (sabakan's status.timestamp). */
const down = (state: ClusterMachine["state"], seconds: number): Partial<ClusterMachine> => ({ state, stateSince: NOW - seconds * SECOND });

interface Round {
  readonly machines: ClusterMachine[];
  readonly grace?: number;
  readonly rebooting?: string[];
  readonly taints?: Record<string, Taint[]>;
  readonly current?: GeneratedCluster;
  readonly count?: number;
}
const maintain = (r: Round) =>
  update(r.current ?? BASE, {
    template: MINIMAL,
    machines: r.machines,
    nodeTaints: new Map(Object.entries(r.taints ?? {})),
    constraints: constraints(r.count ?? 3, 3, 0, r.grace ?? GRACE),
    now: NOW,
    rebootingNodes: new Set(r.rebooting ?? []),
  });

describe("control-plane replacement waits out wait-seconds-to-replace-control-plane and planned reboots", () => {
  const replaced = (address: string, why: string) => `change control plane ${address} (serial ${serialOf(address)}) to worker: replace control plane: ${why}`;
  const cases: Array<{ name: string; round: Round; replaced?: string; waiting: string[]; recheckAt?: number | null }> = [
    {
      name: "UNREACHABLE for grace - 1 s: kept, and why",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", GRACE - 1) }) },
      waiting: [`control plane ${CP1} UNREACHABLE for ${GRACE - 1} s, replaced after ${GRACE} s`],
      recheckAt: NOW + SECOND + 1,
    },
    {
      name: "UNREACHABLE for exactly the grace: kept (strictly longer is needed)",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", GRACE) }) },
      waiting: [`control plane ${CP1} UNREACHABLE for ${GRACE} s, replaced after ${GRACE} s`],
      recheckAt: NOW + 1,
    },
    {
      name: "UNREACHABLE for grace + 1 s: replaced",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", GRACE + 1) }) },
      replaced: replaced(CP1, `machine is UNREACHABLE for ${GRACE + 1} s (> ${GRACE} s)`),
      waiting: [],
    },
    {
      name: "UNHEALTHY for grace - 1 s: kept as well (every replaceable state waits)",
      round: { machines: fleetWith({ [CP1]: down("UNHEALTHY", GRACE - 1) }) },
      waiting: [`control plane ${CP1} UNHEALTHY for ${GRACE - 1} s, replaced after ${GRACE} s`],
      recheckAt: NOW + SECOND + 1,
    },
    {
      name: "UPDATING a day long: kept, and not waiting (not a replaceable state)",
      round: { machines: fleetWith({ [CP1]: down("UPDATING", 86_400) }) },
      waiting: [],
    },
    {
      name: "UNINITIALIZED a day long: kept, and not waiting (not a replaceable state)",
      round: { machines: fleetWith({ [CP1]: down("UNINITIALIZED", 86_400) }) },
      waiting: [],
    },
    {
      name: "constraint 0: replaced at once, as the seed says",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", 0) }), grace: 0 },
      replaced: replaced(CP1, "machine is UNREACHABLE"),
      waiting: [],
    },
    {
      name: "a state timestamp ahead of now (clock skew) waits, and never counts negative",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", -5) }) },
      waiting: [`control plane ${CP1} UNREACHABLE for 0 s, replaced after ${GRACE} s`],
      recheckAt: NOW + (GRACE + 5) * SECOND + 1,
    },
    {
      name: "CKE's reboot annotation: never replaced, even a day past the grace",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", 86_400) }), rebooting: [CP1] },
      waiting: [`control plane ${CP1} UNREACHABLE for 86400 s, not replaced while its node carries cke.cybozu.com/reboot: "true" (a planned reboot)`],
      recheckAt: null,
    },
    {
      name: "CKE's reboot annotation with constraint 0: still never replaced",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", 60) }), rebooting: [CP1], grace: 0 },
      waiting: [`control plane ${CP1} UNREACHABLE for 60 s, not replaced while its node carries cke.cybozu.com/reboot: "true" (a planned reboot)`],
      recheckAt: null,
    },
    {
      name: "another node's reboot annotation does not shield this control plane",
      round: { machines: fleetWith({ [CP1]: down("UNREACHABLE", GRACE + 1) }), rebooting: [CP0] },
      replaced: replaced(CP1, `machine is UNREACHABLE for ${GRACE + 1} s (> ${GRACE} s)`),
      waiting: [],
    },
    {
      name: "an intolerable taint: replaced at once, as before (the grace is for machine states)",
      round: { machines: FLEET, taints: { [CP0]: [{ key: "example.com/broken", effect: "NoSchedule" }] } },
      replaced: replaced(CP0, "node has an intolerable taint (example.com/broken)"),
      waiting: [],
    },
    {
      name: "an intolerable taint on a control plane still within its grace: replaced at once",
      round: { machines: fleetWith({ [CP0]: down("UNREACHABLE", 10) }), taints: { [CP0]: [{ key: "example.com/broken", effect: "NoSchedule" }] } },
      replaced: replaced(CP0, "node has an intolerable taint (example.com/broken)"),
      waiting: [],
    },
    {
      name: "one waits, the next by serial is past its grace: that one is replaced, the other still waits",
      round: { machines: fleetWith({ [CP0]: down("UNREACHABLE", 20), [CP2]: down("UNHEALTHY", GRACE + 60) }) },
      replaced: replaced(CP2, `machine is UNHEALTHY for ${GRACE + 60} s (> ${GRACE} s)`),
      waiting: [`control plane ${CP0} UNREACHABLE for 20 s, replaced after ${GRACE} s`],
      recheckAt: NOW - 20 * SECOND + GRACE * SECOND + 1,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = maintain(c.round);
      if (!r.ok) throw new Error(r.error);
      if (c.replaced === undefined) {
        assert.deepEqual(r.changes, []);
        assert.deepEqual(r.cluster, BASE);
      } else {
        assert.equal(r.changes[0], c.replaced);
        assert.match(r.changes[1] ?? "", /^add control plane /);
        assert.equal(cpAddresses(r.cluster).length, 3);
      }
      assert.deepEqual(r.waiting, { reasons: c.waiting, recheckAt: c.recheckAt ?? null });
    });
  }

  it("a single control plane is never replaced, so it is not reported as waiting", () => {
    const current = ok(generate(MINIMAL, FLEET, constraints(1, 3), NOW));
    const r = maintain({ current, count: 1, machines: fleetWith({ [cpAddresses(current)[0] as string]: down("UNREACHABLE", 10) }) });
    assert.deepEqual(r.ok && r.waiting, { reasons: [], recheckAt: null });
  });

  it("an unhealthy worker is not affected: the same result with any grace", () => {
    const machines = fleetWith({ [WORKERS[0] as string]: down("UNHEALTHY", 10) });
    const [patient, hasty] = [maintain({ machines }), maintain({ machines, grace: 0 })];
    assert.deepEqual(patient, hasty);
    assert.match(patient.ok ? (patient.changes[0] ?? "") : "", /^add worker \S+ \(serial m\d+, any role\): 2 healthy workers, minimum-workers is 3; /);
  });

  describe("a rolling reboot of every control plane swaps no etcd member", () => {
    const reboots: Array<{ name: string; seconds: number; annotated: boolean }> = [
      { name: "each UNREACHABLE briefly, annotated", seconds: 120, annotated: true },
      { name: "each UNREACHABLE briefly, not annotated (the grace alone holds)", seconds: 120, annotated: false },
      { name: "each UNREACHABLE past the grace, annotated (the annotation alone holds)", seconds: GRACE + 600, annotated: true },
    ];
    for (const c of reboots) {
      it(c.name, () => {
        let current = BASE;
        for (const cp of CPS) {
          for (const machines of [fleetWith({ [cp]: down("UNREACHABLE", c.seconds) }), FLEET]) {
            const r = maintain({ current, machines, rebooting: c.annotated ? [cp] : [] });
            if (!r.ok) throw new Error(r.error);
            assert.deepEqual(r.changes, [], `while ${cp} reboots`);
            current = r.cluster;
          }
        }
        assert.deepEqual(cpAddresses(current), CPS);
      });
    }
  });

  describe("the generation records the wait", () => {
    const input = (machines: ClusterMachine[], rebooting: string[] = []) => ({
      template: MINIMAL,
      current: BASE,
      machines,
      nodeTaints: new Map(),
      rebootingNodes: new Set(rebooting),
      constraints: constraints(3, 3),
    });

    it("a RETIRING control plane within its grace keeps its state taint, and the generation's reasons say why it stays", () => {
      const d = decideGeneration(input(fleetWith({ [CP1]: down("RETIRING", 20) })), NOW);
      assert.equal(d.kind, "generated");
      if (d.kind !== "generated") return;
      assert.deepEqual(cpAddresses(d.cluster), CPS);
      assert.deepEqual(d.cluster.nodes.find((n) => n.address === CP1)?.taints, [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }]);
      assert.deepEqual(d.changes, [
        `taint node ${CP1} with cke.cybozu.com/state=retiring:NoExecute: machine is RETIRING`,
        `control plane ${CP1} RETIRING for 20 s, replaced after ${GRACE} s`,
      ]);
      assert.equal(d.waiting.recheckAt, NOW - 20 * SECOND + GRACE * SECOND + 1);
    });

    it("an otherwise quiet round is unchanged, and says who waits and until when", () => {
      const d = decideGeneration(input(fleetWith({ [CP1]: down("UNREACHABLE", 20) })), NOW);
      assert.deepEqual(d, {
        kind: "unchanged",
        waiting: { reasons: [`control plane ${CP1} UNREACHABLE for 20 s, replaced after ${GRACE} s`], recheckAt: NOW + (GRACE - 20) * SECOND + 1 },
      });
    });
  });
});
