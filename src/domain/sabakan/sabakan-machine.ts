import type { MachineBmc } from "./machine-bmc.js";
import type { MachineState } from "./machine-params.js";

/** What the sabakan trigger and cluster generation need of one machine from sabakan's `searchMachines`. */
export interface SabakanMachine {
  readonly serial: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly role: string;
  readonly ipv4: readonly string[];
  readonly bmcType: string;
  /** The BMC a command reaches (`spec.bmc`, validated); absent when sabakan gave no IPv4 literal for it. */
  readonly bmc?: MachineBmc;
  readonly state: MachineState;
  /** Seconds since the last state change, as sabakan reports it. */
  readonly durationSeconds: number;
  /** Epoch milliseconds of the last state change on kintsugi's clock: the answer's time less `status.duration`. */
  readonly stateSince: number;
  /** Epoch milliseconds. */
  readonly registerDate: number;
  /** Epoch milliseconds. */
  readonly retireDate: number;
  /** sabakan's labels, by name. */
  readonly labels: Readonly<Record<string, string>>;
}

/** What Kubernetes says about a machine's address: no node, a node, or a node CKE is rebooting. */
export type NodeStanding = "not-a-node" | "node" | "rebooting";
