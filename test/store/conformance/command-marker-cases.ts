import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandDue, commandStarted } from "../../../src/domain/queue/command-marker.js";
import { withoutCommand } from "../../../src/domain/queue/entry-command.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, newEntry, type StoreHarness } from "./store-harness.js";

const OWNER = { replica: "replica-a", run: "4f2a9c1e0b7d" };

/** The command an entry records as decided or started (kintsugi's fence of machines): kept as any other field. */
export function commandMarkerCases(h: StoreHarness): void {
  describe("command markers", () => {
    it("keeps a command's marker from due to started through a restart, announces it, and removes it with the outcome", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const added = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      assert.equal("command" in added, false, "a new entry has none");
      const due: RepairEntry = { ...added, status: "processing", stepStatus: "watching", command: commandDue(OWNER, 30) };
      await store.entries.change(added.index, () => [{ entry: due, kind: "transition", reason: "step 1: running the repair command" }], NOW + 1, ACTOR);
      const started: RepairEntry = { ...due, command: commandStarted("repair", "1-1-1-ab12cd34", OWNER, NOW + 2, 30) };
      await store.entries.change(added.index, () => [{ entry: started, kind: "note", reason: "step 1: starting the repair command" }], NOW + 2, ACTOR);
      assert.deepEqual(store.entries.get(added.index), started);
      assert.deepEqual(commits.at(-1)?.entries[0]?.entry.command, started.command);
      assert.deepEqual(commits.at(-1)?.entries[0]?.previous?.command, due.command);
      const reopened = await h.reopen();
      assert.deepEqual(reopened.entries.get(added.index), started);
      const ended = withoutCommand(started);
      await reopened.entries.change(added.index, () => [{ entry: ended, kind: "note", reason: "step 1: repair command succeeded; watching" }], NOW + 3, ACTOR);
      assert.equal("command" in (reopened.entries.get(added.index) ?? {}), false);
    });
  });
}
