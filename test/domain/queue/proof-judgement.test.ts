import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { startEvidence, type ObservedProof, type RepairEvidence, type SuccessProof } from "../../../src/domain/proof/repair-evidence.js";
import { judgeProof, recordBootId } from "../../../src/domain/queue/proof-judgement.js";
import { SEC, T, entry, operation, stepCfg } from "./repair-decision-support.js";

const op = (proof: SuccessProof | undefined) => operation([stepCfg()], proof ? { successProof: proof } : {});
const BOOT_PROOF: SuccessProof = { requires: ["boot_id_changed", "node_ready"], dwellSeconds: 60 };
const evidence = (over: Partial<RepairEvidence> = {}): RepairEvidence => ({ ...startEvidence(0, "boot-A"), ...over });
const watching = (ev: RepairEvidence | undefined, over: Partial<RepairEntry> = {}) =>
  entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC, ...(ev && { evidence: ev }), ...over });
const seen = (over: Partial<ObservedProof> = {}): ObservedProof => ({ nodeReady: true, bootId: "boot-B", sabakanState: "HEALTHY", ...over });

interface ProofCase {
  readonly name: string;
  readonly entry: RepairEntry;
  readonly proof?: SuccessProof;
  readonly healthy?: boolean;
  readonly observed?: ObservedProof;
  /** null: the rule does not apply (CKE). */
  readonly want: null | {
    kind: "proven" | "unproven" | "not-repaired";
    reason?: RegExp;
    wakeAt?: number | null;
    note?: RegExp | null;
    evidence?: Partial<RepairEvidence>;
    /** Whether the entry is not to be disrupted (its watch held open, no next step started). */
    dwelling?: boolean;
  };
}

const SABAKAN_PROOF: SuccessProof = { requires: ["sabakan_healthy"], dwellSeconds: 300 };
const dwellingSince = (since: number) =>
  evidence({ since: { health_check: since, sabakan_healthy: since }, dwellStartedAt: since, dwellStarts: 1, bootIdAfter: "boot-B" });
const sabakanDown = seen({ sabakanState: null, unknown: ["sabakan_healthy"] });

const CASES: ProofCase[] = [
  {
    name: "an operation without success_requires: the rule does not apply (CKE's health check alone)",
    entry: watching(undefined),
    proof: undefined,
    want: null,
  },
  {
    name: "a queued entry healthy by the health check and every signal but boot_id_changed: not repaired, it succeeds as CKE's does (no healthy machine is power-cycled for proof)",
    entry: entry(1),
    want: {
      kind: "not-repaired",
      note: /healthy before any repair command ran: nothing was repaired/,
      evidence: {
        step: 0,
        bootIdBefore: null,
        bootIdAfter: "boot-B",
        since: { health_check: T, node_ready: T },
        dwellStartedAt: null,
        dwellStarts: 0,
        provenAt: null,
      },
    },
  },
  {
    name: "a queued entry healthy by its health check but its Node NotReady: not healthy by the operator's signals, it goes on as an unhealthy one",
    entry: entry(1),
    observed: seen({ nodeReady: false }),
    want: { kind: "unproven", reason: /^waiting for proof: no repair command has run$/, note: null },
  },
  {
    name: "a queued entry healthy by its health check but not HEALTHY in sabakan (sabakan_healthy required): it goes on",
    entry: entry(1),
    proof: { requires: ["sabakan_healthy", "boot_id_changed"], dwellSeconds: 0 },
    observed: seen({ sabakanState: "UNHEALTHY" }),
    want: { kind: "unproven", reason: /^waiting for proof: no repair command has run$/, note: null },
  },
  {
    name: "a queued entry found unhealthy: no verdict of health, it goes on",
    entry: entry(1),
    healthy: false,
    want: { kind: "unproven", reason: /^waiting for proof: no repair command has run$/, note: null },
  },
  {
    name: "a first step draining before its repair command, found healthy by every signal: not repaired too",
    entry: entry(1, { status: "processing", stepStatus: "draining", lastTransitionTime: T - 10 * SEC }),
    want: { kind: "not-repaired", note: /nothing was repaired/ },
  },
  {
    name: "evidence gathered since an earlier step's command counts: the dwell starts in step 2",
    entry: watching(evidence({ step: 0 }), { step: 1 }),
    want: {
      kind: "unproven",
      reason: /^healthy: proving the repair for 60s/,
      wakeAt: T + 60 * SEC,
      note: /^step 2: proof of repair: dwell started/,
      evidence: { step: 0, bootIdBefore: "boot-A", dwellStartedAt: T },
    },
  },
  {
    name: "a late recovery while the next step's drain backs off is proven by the first command's evidence",
    entry: watching(
      evidence({
        bootIdAfter: "boot-B",
        since: { health_check: T - 60 * SEC, boot_id_changed: T - 60 * SEC, node_ready: T - 60 * SEC },
        dwellStartedAt: T - 60 * SEC,
        dwellStarts: 1,
      }),
      { step: 1, stepStatus: "waiting", drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC },
    ),
    want: { kind: "proven", note: /^step 2: proof of repair: repair proven$/, evidence: { step: 0, provenAt: T } },
  },
  {
    name: "a late recovery while the next step drains is judged as well",
    entry: watching(evidence(), { step: 1, stepStatus: "draining" }),
    want: { kind: "unproven", reason: /^healthy: proving the repair/, note: /dwell started/ },
  },
  {
    name: "the command 'succeeded' but the boot ID did not change: waiting for boot_id_changed, no dwell",
    entry: watching(evidence()),
    observed: seen({ bootId: "boot-A" }),
    want: {
      kind: "unproven",
      reason: /^waiting for proof: boot_id_changed$/,
      wakeAt: null,
      note: /signals now missing: boot_id_changed/,
      evidence: { dwellStartedAt: null, dwellStarts: 0, bootIdAfter: "boot-A", since: { health_check: T, node_ready: T } },
    },
  },
  {
    name: "no boot ID recorded before the command: a boot ID now never proves a change",
    entry: watching(evidence({ bootIdBefore: null })),
    want: { kind: "unproven", reason: /^waiting for proof: boot_id_changed$/ },
  },
  {
    name: "a hostile boot ID now (a megabyte, control characters) is no boot ID: never a change, never kept",
    entry: watching(evidence()),
    observed: seen({ bootId: `boot-B\x1b[2J${"x".repeat(1 << 20)}` }),
    want: { kind: "unproven", reason: /^waiting for proof: boot_id_changed$/, note: /signals now missing: boot_id_changed/, evidence: { bootIdAfter: null } },
  },
  {
    name: "a machine that is not a Kubernetes node: node_ready and boot_id_changed do not apply, the health check proves it, and the note says so",
    entry: watching(evidence({ bootIdBefore: null })),
    observed: seen({ nodeReady: null, bootId: null }),
    want: {
      kind: "unproven",
      reason: /^healthy: proving the repair for 60s/,
      note: /dwell started; .* \(boot_id_changed, node_ready do not apply: the machine is not a Kubernetes node\)$/,
      evidence: { since: { health_check: T }, dwellStartedAt: T },
    },
  },
  {
    name: "a machine that is not a node still needs the signals that apply (sabakan_healthy)",
    entry: watching(evidence({ bootIdBefore: null })),
    proof: { requires: ["node_ready", "sabakan_healthy"], dwellSeconds: 0 },
    observed: seen({ nodeReady: null, bootId: null, sabakanState: "UNHEALTHY" }),
    want: {
      kind: "unproven",
      reason: /^waiting for proof: sabakan_healthy$/,
      note: /signals now missing: sabakan_healthy \(node_ready do not apply: the machine is not a Kubernetes node\)$/,
    },
  },
  {
    name: "a queued machine that is not a node, healthy: not repaired, without node_ready",
    entry: entry(1),
    observed: seen({ nodeReady: null, bootId: null }),
    want: { kind: "not-repaired", note: /nothing was repaired.* \(boot_id_changed, node_ready do not apply: the machine is not a Kubernetes node\)$/ },
  },
  {
    name: "every signal holds: the dwell starts, and the entry waits until it ends",
    entry: watching(evidence()),
    want: {
      kind: "unproven",
      reason: /^healthy: proving the repair for \d+s, until 2026-11-22T06:01:00\.500Z \(a relapse starts it again\)$/,
      wakeAt: T + 60 * SEC,
      note: /dwell started/,
      evidence: { dwellStartedAt: T, dwellStarts: 1, bootIdAfter: "boot-B", provenAt: null },
    },
  },
  {
    name: "the dwell goes on: nothing new to write",
    entry: watching(
      evidence({
        bootIdAfter: "boot-B",
        since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC, node_ready: T - 30 * SEC },
        dwellStartedAt: T - 30 * SEC,
        dwellStarts: 1,
      }),
    ),
    want: {
      kind: "unproven",
      reason: /^healthy: proving the repair for \d+s, until 2026-11-22T06:00:30\.500Z \(a relapse starts it again\)$/,
      wakeAt: T + 30 * SEC,
      note: null,
    },
  },
  {
    name: "the dwell is over: proven, with the final evidence in the note",
    entry: watching(
      evidence({
        bootIdAfter: "boot-B",
        since: { health_check: T - 60 * SEC, boot_id_changed: T - 60 * SEC, node_ready: T - 60 * SEC },
        dwellStartedAt: T - 60 * SEC,
        dwellStarts: 1,
      }),
    ),
    want: { kind: "proven", note: /repair proven/, evidence: { provenAt: T, dwellStarts: 1 } },
  },
  {
    name: "the Node turns NotReady during the dwell: a relapse ends the dwell",
    entry: watching(
      evidence({
        bootIdAfter: "boot-B",
        since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC, node_ready: T - 30 * SEC },
        dwellStartedAt: T - 30 * SEC,
        dwellStarts: 1,
      }),
    ),
    observed: seen({ nodeReady: false }),
    want: {
      kind: "unproven",
      reason: /^waiting for proof: node_ready$/,
      note: /relapse \(node_ready no longer holds\)/,
      evidence: { dwellStartedAt: null, dwellStarts: 1, since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC } },
    },
  },
  {
    name: "the health check says unhealthy during the dwell: a relapse too",
    entry: watching(
      evidence({
        bootIdAfter: "boot-B",
        since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC, node_ready: T - 30 * SEC },
        dwellStartedAt: T - 30 * SEC,
        dwellStarts: 1,
      }),
    ),
    healthy: false,
    want: {
      kind: "unproven",
      reason: /^waiting for proof: health_check$/,
      note: /relapse \(health_check no longer holds\)/,
      evidence: { dwellStartedAt: null },
    },
  },
  {
    name: "after a relapse every signal holds again: the dwell restarts (second start) from now",
    entry: watching(
      evidence({ bootIdAfter: "boot-B", since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC }, dwellStartedAt: null, dwellStarts: 1 }),
    ),
    want: {
      kind: "unproven",
      reason: /^healthy: proving the repair for \d+s, until 2026-11-22T06:01:00\.500Z \(a relapse starts it again\)$/,
      note: /dwell restarted \(start 2\)/,
      evidence: { dwellStartedAt: T, dwellStarts: 2, since: { health_check: T - 30 * SEC, boot_id_changed: T - 30 * SEC, node_ready: T } },
    },
  },
  {
    name: "sabakan_healthy needs sabakan's HEALTHY state",
    entry: watching(evidence()),
    proof: { requires: ["sabakan_healthy"], dwellSeconds: 0 },
    observed: seen({ sabakanState: "UNHEALTHY" }),
    want: { kind: "unproven", reason: /^waiting for proof: sabakan_healthy$/ },
  },
  {
    name: "sabakan cannot be asked during the dwell: an unknown signal is not a relapse; the dwell stands and the entry is not to be disrupted",
    entry: watching(dwellingSince(T - 100 * SEC)),
    proof: SABAKAN_PROOF,
    observed: sabakanDown,
    want: { kind: "unproven", reason: /^waiting for proof: sabakan_healthy unknown \(its source did not answer\)$/, wakeAt: null, note: null, dwelling: true },
  },
  {
    name: "sabakan cannot be asked when the dwell would end: not proven on a signal nobody read",
    entry: watching(dwellingSince(T - 400 * SEC)),
    proof: SABAKAN_PROOF,
    observed: sabakanDown,
    want: { kind: "unproven", reason: /^waiting for proof: sabakan_healthy unknown/, note: null, dwelling: true },
  },
  {
    name: "sabakan answers again after the outage: the dwell that began before it is judged as it stands",
    entry: watching(dwellingSince(T - 400 * SEC)),
    proof: SABAKAN_PROOF,
    want: { kind: "proven", note: /repair proven/, evidence: { dwellStartedAt: T - 400 * SEC, dwellStarts: 1, provenAt: T } },
  },
  {
    name: "the health check fails while sabakan cannot be asked: a known signal failed, a relapse",
    entry: watching(dwellingSince(T - 100 * SEC)),
    proof: SABAKAN_PROOF,
    healthy: false,
    observed: sabakanDown,
    want: { kind: "unproven", reason: /^waiting for proof: health_check$/, note: /relapse \(health_check no longer holds\)/, dwelling: false },
  },
  {
    name: "a queued entry healthy by its health check while sabakan cannot be asked: not repaired yet, and not started either",
    entry: entry(1),
    proof: SABAKAN_PROOF,
    observed: sabakanDown,
    want: { kind: "unproven", reason: /^waiting for proof: sabakan_healthy unknown/, note: null, dwelling: true },
  },
  {
    name: "a queued entry unhealthy by its health check while sabakan cannot be asked: it goes on as an unhealthy one",
    entry: entry(1),
    proof: SABAKAN_PROOF,
    healthy: false,
    observed: sabakanDown,
    want: { kind: "unproven", reason: /^waiting for proof: no repair command has run$/, note: null, dwelling: false },
  },
  {
    name: "with no dwell, proven at the first pass every signal holds",
    entry: watching(evidence()),
    proof: { requires: ["sabakan_healthy", "boot_id_changed"], dwellSeconds: 0 },
    want: { kind: "proven", note: /repair proven/, evidence: { dwellStartedAt: T, dwellStarts: 1, provenAt: T } },
  },
  {
    name: "a dwell with no signal required: the health check alone must hold for it",
    entry: watching(evidence()),
    proof: { requires: [], dwellSeconds: 10 },
    observed: seen({ nodeReady: false, bootId: "boot-A", sabakanState: null }),
    want: { kind: "unproven", reason: /^healthy: proving the repair for \d+s, until 2026-11-22T06:00:10\.500Z \(a relapse starts it again\)$/ },
  },
];

describe("judgeProof", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const verdict = judgeProof(c.entry, op("proof" in c ? c.proof : BOOT_PROOF), c.healthy ?? true, c.observed ?? seen(), T);
      if (c.want === null) return assert.equal(verdict, null);
      assert.ok(verdict);
      assert.equal(verdict.kind, c.want.kind);
      if (c.want.reason)
        assert.ok(verdict.kind === "unproven" && c.want.reason.test(verdict.wait.message), verdict.kind === "unproven" ? verdict.wait.message : "proven");
      // A dwell is a DWELL wait that ends when the dwell does; anything else missing is a PROOF wait with no end.
      if (verdict.kind === "unproven")
        assert.deepEqual([verdict.wait.kind, verdict.wait.until], verdict.wakeAt === null ? ["PROOF", null] : ["DWELL", verdict.wakeAt]);
      if (c.want.dwelling !== undefined) assert.equal(verdict.kind === "unproven" && verdict.dwelling, c.want.dwelling, "dwelling");
      if (c.want.wakeAt !== undefined) assert.equal(verdict.kind === "unproven" ? verdict.wakeAt : undefined, c.want.wakeAt);
      if (c.want.note === null) assert.deepEqual(verdict.transitions, []);
      if (c.want.note) {
        assert.equal(verdict.transitions.length, 1);
        const note = verdict.transitions[0]!;
        assert.equal(note.kind, "note");
        assert.match(note.reason, c.want.note);
        // The note changes the evidence only: never the entry's status, step or transition time.
        assert.deepEqual({ ...note.after, evidence: undefined }, { ...c.entry, evidence: undefined });
        for (const [key, value] of Object.entries(c.want.evidence ?? {})) assert.deepEqual(note.after.evidence?.[key as keyof RepairEvidence], value, key);
      }
    });
  }
});

describe("recordBootId", () => {
  const started = watching(undefined);
  it("records the boot ID before the repair command as fresh evidence of the step", () => {
    const note = recordBootId(started, op(BOOT_PROOF), "boot-A");
    assert.equal(note?.kind, "note");
    assert.match(note?.reason ?? "", /^step 1: proof of repair: boot ID boot-A recorded before the repair command$/);
    assert.deepEqual(note?.after.evidence, startEvidence(0, "boot-A"));
  });
  it("keeps the evidence of an earlier step's command when a later step's command starts: it goes on counting", () => {
    const later = watching(startEvidence(0, "boot-A"), { step: 1 });
    assert.equal(recordBootId(later, op(BOOT_PROOF), "boot-B"), null);
  });
  it("says so when no boot ID is known", () => {
    assert.match(recordBootId(started, op(BOOT_PROOF), null)?.reason ?? "", /no boot ID known/);
  });
  it("records no boot ID when the Node reports an unusable one", () => {
    for (const hostile of ["", "boot A", "boot\u202eA", "x".repeat(257)]) {
      const note = recordBootId(started, op(BOOT_PROOF), hostile);
      assert.equal(note?.after.evidence?.bootIdBefore, null, JSON.stringify(hostile.slice(0, 20)));
      assert.match(note?.reason ?? "", /no boot ID known/);
    }
    assert.equal(recordBootId(started, op(BOOT_PROOF), "x".repeat(256))?.after.evidence?.bootIdBefore, "x".repeat(256));
  });
  it("records nothing for an operation that requires no proof", () => {
    assert.equal(recordBootId(started, op(undefined), "boot-A"), null);
  });
});
