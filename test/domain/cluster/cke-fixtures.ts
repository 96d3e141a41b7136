import { readFileSync } from "node:fs";
import type { MachineState } from "../../../src/domain/sabakan/machine-params.js";
import type { ClusterMachine } from "../../../src/domain/cluster/types.js";

// CKE's output formats kept in the repo (test/fixtures/cke/, see its README): the template and cluster ckecli prints,
// and the machines of the sabakan they were made from.

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/cke/${name}`, import.meta.url), "utf8");

/** `ckecli sabakan get-template` and `ckecli cluster get` of the fixtures' data center. */
export const CKE_TEMPLATE = fixture("get-template.yaml");
export const CKE_CLUSTER = fixture("cluster-get.yaml");

interface FixtureMachine {
  serial: string;
  rack: number;
  indexInRack: number;
  role: string;
  ipv4: string[];
  state: MachineState;
  registerDate: string;
  retireDate: string;
  labels: Record<string, string>;
}

/** The fixtures' machines as cluster generation reads them, each in its state for an hour as of `now`. */
export function ckeMachines(now: number): ClusterMachine[] {
  return (JSON.parse(fixture("machines.json")) as FixtureMachine[]).map((m) => ({
    ...m,
    registerDate: Date.parse(m.registerDate),
    retireDate: Date.parse(m.retireDate),
    durationSeconds: 3600,
    stateSince: now - 3600_000,
  }));
}
