import { CORDONED_BY_ANNOTATION, type ClusterNode } from "../adapters/ports.js";
import { CONTROL_PLANE_LABEL } from "../domain/queue/control-planes.js";
import type { MachineState } from "../domain/sabakan/machine-params.js";
import { REBOOT_ANNOTATION } from "../domain/shared/node-reboot.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";

/** What a repair command must do for a broken machine to work again; "never": nothing the commands do helps. */
export type Fix = "reboot" | "power-cycle" | "never";

/** The label every simulated node carries (what the simulated health check selects). */
export const SIM_ROLE_LABEL = "sim.kintsugi.io/role";
export const SIM_BMC_TYPE = "sim-bmc";

/** One machine of the simulated data center and the faults on it; times are virtual milliseconds. */
export interface SimMachine {
  readonly serial: string;
  readonly address: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly role: "control-plane" | "worker";
  /** Its Kubernetes Node's name; null for a machine that is not a node. */
  readonly node: string | null;
  /** `nodeUp`: the machine fails its health check but its Node stays Ready (a failing disk, a degraded NIC). */
  broken: { readonly fix: Fix; readonly since: number; readonly nodeUp: boolean } | null;
  /** When a broken machine comes back by itself (a late recovery, power restored); null: it does not. */
  recoverAt: number | null;
  /** The machine boots (after a repair command) until then: its health check and its Node are not yet up. */
  bootingUntil: number;
  notReadyUntil: number;
  /** CKE is rebooting the node until then (the reboot annotation and CKE's cordon), since `rebootSince`. */
  rebootUntil: number;
  rebootSince: number;
  pdbUntil: number;
  protectedJobUntil: number;
  sabakanFlapUntil: number;
  rackPowerUntil: number;
  unschedulable: boolean;
  annotations: Record<string, string>;
  bootId: number;
  /** The workload was evicted from the node; it comes back when the node is schedulable again. */
  evicted: boolean;
  ready: boolean;
  readySince: number;
  state: MachineState;
  stateSince: number;
  /** The machine's Node was deleted from the cluster (it left mid-repair) until `nodeBackAt`, when it joins again. */
  nodeGone: boolean;
  nodeBackAt: number;
  /** The workload pod stays listed after its eviction until then (a finalizer): a drain cannot complete before. */
  podStuckUntil: number;
  /** The entry whose repair command the machine boots after (until `bootingUntil`); null: none. */
  bootedBy: number | null;
  /** An operator retires the machine (cluster generation runs only): RETIRING from then, RETIRED for good from `retiredAt`; 0: not. */
  retiringAt: number;
  retiredAt: number;
  /** A machine sabakan is still installing (cluster generation runs only): UNINITIALIZED until then. */
  uninitializedUntil: number;
}

/** Racks of machines: the first machine of the first `controlPlanes` racks is a control plane, the rest workers. */
export class SimWorld {
  readonly machines: SimMachine[] = [];
  private readonly byAddress = new Map<string, SimMachine>();
  private readonly byNode = new Map<string, SimMachine>();
  /** sabakan calls a machine CKE is rebooting UNREACHABLE (cluster generation runs only: the grace rule reads it). */
  rebootsUnreachable = false;

  constructor(machines: number, perRack: number, controlPlanes: number, notNodes: number, now: number) {
    for (let i = 0; i < machines; i++) {
      const rack = Math.floor(i / perRack);
      const indexInRack = i % perRack;
      const role = indexInRack === 0 && rack < controlPlanes ? "control-plane" : "worker";
      const address = `10.${69 + Math.floor(rack / 64)}.${(rack % 64) * 4 + Math.floor(indexInRack / 250)}.${(indexInRack % 250) + 1}`;
      // The last `notNodes` workers are machines outside Kubernetes (storage, boot servers awaiting a role).
      const node = role === "worker" && i >= machines - notNodes ? null : `rack${rack}-node${indexInRack}`;
      const m: SimMachine = {
        serial: `sim-${String(i).padStart(5, "0")}`,
        address,
        rack,
        indexInRack,
        role,
        node,
        broken: null,
        recoverAt: null,
        bootingUntil: 0,
        notReadyUntil: 0,
        rebootUntil: 0,
        rebootSince: 0,
        pdbUntil: 0,
        protectedJobUntil: 0,
        sabakanFlapUntil: 0,
        rackPowerUntil: 0,
        unschedulable: false,
        annotations: {},
        bootId: 1,
        evicted: false,
        ready: true,
        readySince: now,
        state: "HEALTHY",
        stateSince: now,
        retiringAt: 0,
        retiredAt: 0,
        uninitializedUntil: 0,
        nodeGone: false,
        nodeBackAt: 0,
        podStuckUntil: 0,
        bootedBy: null,
      };
      this.machines.push(m);
      this.byAddress.set(address, m);
      if (node) this.byNode.set(node, m);
    }
  }

  at(address: string): SimMachine | undefined {
    return this.byAddress.get(address);
  }

  nodeNamed(name: string): SimMachine | undefined {
    return this.byNode.get(name);
  }

  controlPlaneAddresses(): string[] {
    return this.machines.filter((m) => m.role === "control-plane").map((m) => m.address);
  }

  /** What the machine's health check answers: it works, is not rebooting, and its rack has power. */
  healthy(m: SimMachine, now: number): boolean {
    return m.broken === null && now >= m.bootingUntil && now >= m.rackPowerUntil && now >= m.rebootUntil;
  }

  /** Recomputes what follows from time and faults: recoveries, reboots ending, Ready and sabakan state changes. */
  refresh(now: number): void {
    for (const m of this.machines) {
      if (m.broken && m.recoverAt !== null && now >= m.recoverAt) {
        // A machine whose Node went down comes back by rebooting; one whose Node stayed Ready (a flapping link, a
        // disk that answers again) recovers as it runs: its boot ID stays.
        if (!m.broken.nodeUp) m.bootId++;
        m.broken = null;
        m.recoverAt = null;
      }
      if (m.rebootUntil !== 0 && now >= m.rebootUntil) {
        m.rebootUntil = 0;
        m.bootId++;
        delete m.annotations[REBOOT_ANNOTATION];
        if (m.annotations[CORDONED_BY_ANNOTATION] === undefined) m.unschedulable = false;
      }
      if (m.pdbUntil !== 0 && now >= m.pdbUntil) m.pdbUntil = 0;
      if (m.nodeGone && now >= m.nodeBackAt) {
        // It joins again as a new Node: uncordoned, without the old one's annotations.
        m.nodeGone = false;
        m.unschedulable = false;
        m.annotations = {};
        m.readySince = now;
      }
      if (m.protectedJobUntil !== 0 && now >= m.protectedJobUntil) m.protectedJobUntil = 0;
      if (!m.unschedulable) m.evicted = false;
      const up = now >= m.bootingUntil && now >= m.rackPowerUntil && now >= m.rebootUntil && now >= m.notReadyUntil;
      const ready = up && (m.broken === null || m.broken.nodeUp);
      if (ready !== m.ready) {
        m.ready = ready;
        m.readySince = now;
      }
      const state: MachineState =
        m.retiredAt !== 0 && now >= m.retiredAt
          ? "RETIRED"
          : m.retiringAt !== 0 && now >= m.retiringAt
            ? "RETIRING"
            : now < m.uninitializedUntil
              ? "UNINITIALIZED"
              : m.broken || now < m.rackPowerUntil
                ? now < m.rackPowerUntil
                  ? "UNREACHABLE"
                  : "UNHEALTHY"
                : now < m.sabakanFlapUntil || (this.rebootsUnreachable && now < m.rebootUntil)
                  ? "UNREACHABLE"
                  : "HEALTHY";
      if (state !== m.state) {
        m.state = state;
        m.stateSince = now;
      }
    }
  }

  /**
   * A repair command that ended well: the machine reboots (a new boot id) and works again if the command fixes it.
   * `entryIndex`: the entry whose command it was (the invariants count the machine as disrupted by it while it boots).
   */
  repaired(m: SimMachine, kind: string, bootSeconds: number, now: number, entryIndex: number | null = null): void {
    if (now < m.rackPowerUntil) return;
    m.bootId++;
    m.bootingUntil = now + bootSeconds * 1000;
    m.bootedBy = entryIndex;
    if (m.broken && (m.broken.fix === kind || (kind === "power-cycle" && m.broken.fix === "reboot"))) m.broken = null;
  }

  clusterNodes(): ClusterNode[] {
    const nodes: ClusterNode[] = [];
    for (const m of this.machines) {
      if (m.node === null || m.nodeGone) continue;
      const labels: Record<string, string> = { [SIM_ROLE_LABEL]: m.role };
      if (m.role === "control-plane") labels[CONTROL_PLANE_LABEL] = "";
      nodes.push({
        name: m.node,
        internalIPs: [m.address],
        unschedulable: m.unschedulable,
        annotations: { ...m.annotations },
        labels,
        taints: [],
        conditions: [{ type: "Ready", status: m.ready ? "True" : "False", lastTransitionTime: m.readySince }],
        bootId: bootIdOf(m),
      });
    }
    return nodes;
  }

  sabakanMachine(m: SimMachine, now: number): SabakanMachine {
    return {
      serial: m.serial,
      rack: m.rack,
      indexInRack: m.indexInRack,
      role: m.role === "control-plane" ? "cs" : "ss",
      ipv4: [m.address],
      bmcType: SIM_BMC_TYPE,
      state: m.state,
      durationSeconds: (now - m.stateSince) / 1000,
      stateSince: m.stateSince,
      registerDate: 0,
      retireDate: 0,
      labels: {},
    };
  }
}

/** The boot ID a machine's Node reports (it changes at every boot). */
export function bootIdOf(m: SimMachine): string {
  return `boot-${m.serial}-${m.bootId}`;
}
