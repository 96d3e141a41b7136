import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { RepairEvidence } from "../../../src/domain/proof/repair-evidence.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, newEntry, type StoreHarness } from "./store-harness.js";

/** Evidence using every field, as proof of repair keeps it mid-dwell after a relapse. */
export const EVIDENCE: RepairEvidence = {
  step: 1,
  bootIdBefore: "4e1b2c3d-boot-before",
  bootIdAfter: "9f8e7d6c-boot-after",
  since: { health_check: NOW + 10, node_ready: NOW + 20, boot_id_changed: NOW + 10 },
  dwellStartedAt: NOW + 20,
  dwellStarts: 2,
  provenAt: null,
};

/** The proof of repair an entry carries (kintsugi's `success_requires`): kept as any other field. */
export function evidenceCases(h: StoreHarness): void {
  describe("proof of repair evidence", () => {
    it("keeps an entry's evidence through a change, a note and a restart, and announces it", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const added = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      assert.equal("evidence" in added, false, "an entry of an operation without proof has none");
      const watching: RepairEntry = {
        ...added,
        status: "processing",
        step: 1,
        stepStatus: "watching",
        evidence: { ...EVIDENCE, dwellStartedAt: null, since: {} },
      };
      await store.entries.change(added.index, () => [{ entry: watching, kind: "transition", reason: "step 2: running the repair command" }], NOW + 1, ACTOR);
      const proven: RepairEntry = { ...watching, evidence: EVIDENCE };
      await store.entries.change(
        added.index,
        () => [{ entry: proven, kind: "note", reason: "step 2: proof of repair: dwell restarted (start 2)", detail: "boot ID before ..." }],
        NOW + 2,
        ACTOR,
      );
      assert.deepEqual(store.entries.get(added.index), proven);
      assert.deepEqual(commits.at(-1)?.entries[0]?.entry.evidence, EVIDENCE);
      assert.deepEqual(commits.at(-1)?.entries[0]?.previous?.evidence, watching.evidence);
      const history = await store.entries.history(added.index);
      assert.equal(history.at(-1)?.kind, "note");
      assert.equal(history.at(-1)?.detail, "boot ID before ...");
      const reopened = await h.reopen();
      assert.deepEqual(reopened.entries.get(added.index), proven);
      assert.deepEqual(
        reopened.entries.list().map((e) => e.evidence),
        [EVIDENCE],
      );
    });

    it("replaces the evidence when the next step's command records fresh evidence", async () => {
      const store = await h.open();
      const added = (await store.entries.add(newEntry("10.0.0.2", { status: "processing", stepStatus: "watching", evidence: EVIDENCE }), "test", NOW, ACTOR))
        .entry;
      assert.deepEqual(store.entries.get(added.index)?.evidence, EVIDENCE);
      const fresh: RepairEvidence = { step: 2, bootIdBefore: null, bootIdAfter: null, since: {}, dwellStartedAt: null, dwellStarts: 0, provenAt: null };
      await store.entries.change(
        added.index,
        (current) => (current ? [{ entry: { ...current, step: 2, evidence: fresh }, kind: "note", reason: "fresh" }] : null),
        NOW + 1,
        ACTOR,
      );
      assert.deepEqual((await h.reopen()).entries.get(added.index)?.evidence, fresh);
    });

    it("reads evidence back in one field order whichever order it was written in, so entries compare equal as text", async () => {
      const store = await h.open();
      const { step, since: _since, provenAt, ...rest } = EVIDENCE;
      const scrambled = { provenAt, ...rest, since: { boot_id_changed: NOW + 10, node_ready: NOW + 20, health_check: NOW + 10 }, step } as RepairEvidence;
      const added = (await store.entries.add(newEntry("10.0.0.3", { evidence: scrambled }), "test", NOW, ACTOR)).entry;
      const check = (s: typeof store) => {
        assert.equal(JSON.stringify(s.entries.get(added.index)?.evidence), JSON.stringify(EVIDENCE));
        assert.equal(JSON.stringify(s.entries.get(added.index)), JSON.stringify(s.entries.list().find((e) => e.index === added.index)));
      };
      check(store);
      check(await h.reopen());
    });
  });
}
