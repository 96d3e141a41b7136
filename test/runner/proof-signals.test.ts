import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ClusterNode } from "../../src/adapters/ports.js";
import { SabakanClient } from "../../src/adapters/sabakan-client.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { startEvidence, type ProofSignal } from "../../src/domain/proof/repair-evidence.js";
import { gatherProofSignals, type ProofSignalDeps } from "../../src/runner/proof-signals.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { entry, operation, stepCfg } from "../domain/queue/repair-decision-support.js";

const config = (requires: ProofSignal[] | null): RepairConfig => ({
  ...EMPTY_REPAIR_CONFIG,
  repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation([stepCfg()], requires ? { successProof: { requires, dwellSeconds: 0 } } : {})] }],
});
const node = (name: string, ready: string, bootId?: string): ClusterNode => ({
  name,
  internalIPs: [],
  unschedulable: false,
  annotations: {},
  labels: {},
  taints: [],
  conditions: [{ type: "Ready", status: ready, lastTransitionTime: 0 }],
  ...(bootId && { bootId }),
});
/** Entry 1 (10.1.0.1) watches out its repair command; entry 2 (10.1.0.2) is queued; 10.2.0.1 is not a node. */
const watchingAt = (index: number, address: string): RepairEntry =>
  entry(index, { address, status: "processing", stepStatus: "watching", evidence: startEvidence(0, "boot-0") });
const NODES = new Map([
  ["10.1.0.1", node("n1", "True", "boot-1")],
  ["10.1.0.2", node("n2", "False")],
]);

describe("gatherProofSignals (the real sabakan client against the fake sabakan)", () => {
  let sabakan: FakeSabakan;
  let deps: (repair: RepairConfig, rackOf?: (a: string) => number | null) => ProofSignalDeps;
  const warnings: string[] = [];
  before(async () => {
    sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: "s1", rack: 1, ipv4: ["10.1.0.1"], state: "HEALTHY" });
    sabakan.addMachine({ serial: "s2", rack: 1, ipv4: ["10.1.0.2"], state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "s3", rack: 2, ipv4: ["10.2.0.1"], state: "HEALTHY" });
    const machines = new SabakanClient({ url: sabakan.url, timeoutMs: 5000, maxResponseBytes: 1 << 20 });
    deps = (repair, rackOf = () => null) => ({ repair, machines, rackOf, log: (m) => warnings.push(m) });
  });
  after(() => sabakan.close());

  it("reads Ready and the boot ID from the listed nodes and asks sabakan once for the HEALTHY machines", async () => {
    const before = sabakan.requests.length;
    const signals = await gatherProofSignals(
      [watchingAt(1, "10.1.0.1"), watchingAt(2, "10.1.0.2"), watchingAt(3, "10.2.0.1")],
      (a) => NODES.get(a),
      deps(config(["sabakan_healthy", "node_ready"])),
    );
    assert.deepEqual(Object.fromEntries(signals), {
      1: { nodeReady: true, bootId: "boot-1", sabakanState: "HEALTHY" },
      2: { nodeReady: false, bootId: null, sabakanState: null },
      3: { nodeReady: null, bootId: null, sabakanState: "HEALTHY" },
    });
    assert.equal(sabakan.requests.length - before, 1, "one query per pass");
    assert.deepEqual(sabakan.requests.at(-1)?.variables, { having: { states: ["HEALTHY"] }, notHaving: null });
  });

  it("bounds the query to the entries' racks when sabakan named them all", async () => {
    await gatherProofSignals(
      [watchingAt(1, "10.1.0.1"), watchingAt(2, "10.1.0.2")],
      (a) => NODES.get(a),
      deps(config(["sabakan_healthy"]), () => 1),
    );
    assert.deepEqual(sabakan.requests.at(-1)?.variables, { having: { states: ["HEALTHY"], racks: [1] }, notHaving: null });
  });

  it("asks sabakan nothing when no operation requires sabakan_healthy", async () => {
    const before = sabakan.requests.length;
    const boot = await gatherProofSignals([watchingAt(1, "10.1.0.1")], (a) => NODES.get(a), deps(config(["boot_id_changed"])));
    assert.deepEqual(boot.get(1), { nodeReady: true, bootId: "boot-1", sabakanState: null });
    assert.equal(sabakan.requests.length, before);
  });

  it("asks sabakan for an entry draining a later step: the evidence since its first repair command counts in every step", async () => {
    const before = sabakan.requests.length;
    const drainingLaterStep = entry(1, { address: "10.1.0.1", status: "processing", step: 1, stepStatus: "draining", evidence: startEvidence(0, "boot-1") });
    const signals = await gatherProofSignals([drainingLaterStep], (a) => NODES.get(a), deps(config(["sabakan_healthy"])));
    assert.equal(sabakan.requests.length, before + 1);
    assert.equal(signals.get(1)?.sabakanState, "HEALTHY");
  });

  it("asks sabakan for an entry whose repair command never ran: healthy by every signal, it needs no repair", async () => {
    const before = sabakan.requests.length;
    const signals = await gatherProofSignals([entry(1, { address: "10.1.0.1" })], (a) => NODES.get(a), deps(config(["sabakan_healthy"])));
    assert.equal(sabakan.requests.length, before + 1);
    assert.ok(signals.has(1));
  });

  it("gathers nothing at all for operations without success_requires (CKE)", async () => {
    const before = sabakan.requests.length;
    assert.equal((await gatherProofSignals([watchingAt(1, "10.1.0.1")], (a) => NODES.get(a), deps(config(null)))).size, 0);
    assert.equal(sabakan.requests.length, before);
  });

  it("a failed sabakan query leaves sabakan_healthy unknown, neither proven nor failing, and says so", async () => {
    sabakan.failWithStatus(503);
    const signals = await gatherProofSignals([watchingAt(1, "10.1.0.1")], (a) => NODES.get(a), deps(config(["sabakan_healthy"])));
    assert.deepEqual(signals.get(1), { nodeReady: true, bootId: "boot-1", sabakanState: null, unknown: ["sabakan_healthy"] });
    assert.match(warnings.at(-1) ?? "", /cannot ask sabakan whether repaired machines are healthy/);
  });
});
