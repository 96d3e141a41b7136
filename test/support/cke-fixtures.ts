import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { MachineState } from "../../src/domain/sabakan/machine-params.js";
import type { ClusterMachine } from "../../src/domain/cluster/types.js";

// CKE's output formats kept in the repo (test/fixtures/cke/, see its README): what ckecli prints for the data center
// of machines.json, whose cluster CKE generated.

/** The folder of the fixtures. */
export const CKE_FIXTURES = fileURLToPath(new URL("../fixtures/cke/", import.meta.url));

/** A fixture's text, by file name. */
export const ckeFixture = (name: string): string => readFileSync(`${CKE_FIXTURES}${name}`, "utf8");

/** `ckecli sabakan get-template` and `ckecli cluster get` of the fixtures' data center. */
export const CKE_TEMPLATE = ckeFixture("get-template.yaml");
export const CKE_CLUSTER = ckeFixture("cluster-get.yaml");

/** One machine of machines.json: what a test sabakan serves (FakeMachineSpec's fields). */
export interface FixtureMachine {
  readonly serial: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly role: string;
  readonly ipv4: string[];
  readonly state: MachineState;
  readonly registerDate: string;
  readonly retireDate: string;
  readonly labels: Record<string, string>;
}

/** The fixtures' machines as a test sabakan serves them. */
export const CKE_MACHINES: readonly FixtureMachine[] = JSON.parse(ckeFixture("machines.json")) as FixtureMachine[];

/** The fixtures' machines as cluster generation reads them, each in its state for an hour as of `now`. */
export function ckeMachines(now: number): ClusterMachine[] {
  return CKE_MACHINES.map((m) => ({
    ...m,
    registerDate: Date.parse(m.registerDate),
    retireDate: Date.parse(m.retireDate),
    durationSeconds: 3600,
    stateSince: now - 3600_000,
  }));
}
