import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeKubeApi, type FakeKubeApi } from "../../test/support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../../test/support/fake-sabakan.js";
import { DemoHardware } from "./hardware.js";

/** One machine of the demo: sabakan's serial, rack and first IPv4, also its Kubernetes node's InternalIP. */
export interface DemoMachine {
  readonly serial: string;
  readonly rack: number;
  readonly address: string;
}

export const RACKS = 4;
export const PER_RACK = 6;
/** The rack whose power the scenario cuts, again and again: workers only (the control planes are in racks 0-2). */
export const POWER_CUT_RACK = 3;

/** The frontend pod of a machine's node, a ReplicaSet's: what a drain evicts, and a disruption budget may protect. */
export const frontendPodOf = (serial: string): string => `frontend-${serial}`;

function addFrontendPod(kube: FakeKubeApi, serial: string): void {
  kube.addPod({ namespace: "web", name: frontendPodOf(serial), nodeName: `node-${serial}`, controllerKind: "ReplicaSet" });
}

/**
 * The ReplicaSet places a frontend pod on the machine's node again when there is none (a drain evicted it): after a
 * repair, and before a disruption budget can protect it. Returns whether it placed one.
 */
export function frontendPodBack(dc: DataCenter, serial: string): boolean {
  if (dc.kube.pods().some((p) => p.namespace === "web" && p.name === frontendPodOf(serial))) return false;
  addFrontendPod(dc.kube, serial);
  return true;
}

/** The simulated data center: sabakan, the Kubernetes API, and the hardware behind both. */
export interface DataCenter {
  readonly sabakan: FakeSabakan;
  readonly kube: FakeKubeApi;
  readonly hardware: DemoHardware;
  readonly machines: readonly DemoMachine[];
  /** The world's clock, milliseconds since the epoch (see demo-clock.ts). */
  readonly now: () => number;
  close(): Promise<void>;
}

/**
 * 4 racks of 6 working machines, each registered in sabakan (HEALTHY) and a node of the cluster with a frontend
 * pod (drained on repair) and a DaemonSet agent (left alone), as kintsugi's own test servers play them.
 */
export async function startDataCenter(dir: string, now: () => number = Date.now): Promise<DataCenter> {
  const sabakan = await startFakeSabakan({ now });
  const kube = await startFakeKubeApi();
  const hardware = new DemoHardware(join(dir, "hardware"));
  mkdirSync(hardware.dir);
  const machines: DemoMachine[] = [];
  for (let rack = 0; rack < RACKS; rack++) {
    for (let i = 0; i < PER_RACK; i++) {
      const machine = { serial: `r${rack}m${i + 1}`, rack, address: `10.69.${rack}.${i + 1}` };
      machines.push(machine);
      hardware.fix(machine.address);
      sabakan.addMachine({ serial: machine.serial, rack, indexInRack: i + 1, ipv4: [machine.address], bmcType: "IPMI-2.0", state: "HEALTHY" });
      kube.addNode({ name: `node-${machine.serial}`, internalIP: machine.address });
      addFrontendPod(kube, machine.serial);
      kube.addPod({ namespace: "kube-system", name: `agent-${machine.serial}`, nodeName: `node-${machine.serial}`, controllerKind: "DaemonSet" });
    }
  }
  return {
    sabakan,
    kube,
    hardware,
    machines,
    now,
    async close() {
      hardware.close();
      await kube.close();
      await sabakan.close();
    },
  };
}
