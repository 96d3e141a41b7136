import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../src/domain/repair-entry.js";
import type { EntryTransition } from "../../src/domain/repair-plan.js";
import { commitOutcome, type CommitIfUnchanged } from "../../src/runner/repair-jobs.js";
import { entry } from "../domain/repair-decision-support.js";

/** A SQLite error as better-sqlite3 throws it (its `code` is the extended result code). */
const sqliteError = (code: string) => Object.assign(new Error(`${code.toLowerCase()}`), { code });

/** A commit that fails with the given errors in turn, then commits. */
function committing(errors: Error[]) {
  let calls = 0;
  const commit: CommitIfUnchanged = async (worked, decide) => {
    calls++;
    const error = errors.shift();
    if (error) throw error;
    return decide(worked);
  };
  return { commit, calls: () => calls };
}

const worked: RepairEntry = entry(1, { status: "processing", stepStatus: "watching" });
const failedAfter = (current: RepairEntry): EntryTransition => ({ after: { ...current, status: "failed" }, kind: "transition", reason: "every attempt failed" });

describe("commitOutcome", () => {
  it("commits a job's outcome once another process releases the write lock", async () => {
    const c = committing([sqliteError("SQLITE_BUSY"), sqliteError("SQLITE_BUSY_SNAPSHOT")]);
    const t = await commitOutcome(c.commit, worked, failedAfter, new AbortController().signal);
    assert.equal(t?.after.status, "failed");
    assert.equal(c.calls(), 3);
  });

  const final: Array<[string, Error]> = [
    ["a read-only database", sqliteError("SQLITE_READONLY")],
    ["a full disk", sqliteError("SQLITE_FULL")],
    ["an error that is not the database's", new Error("boom")],
  ];
  for (const [name, error] of final) {
    it(`does not retry ${name}`, async () => {
      const c = committing([error]);
      await assert.rejects(commitOutcome(c.commit, worked, failedAfter, new AbortController().signal), error);
      assert.equal(c.calls(), 1);
    });
  }

  it("gives up at once when the runner stops (the abort signal)", async () => {
    const stopping = new AbortController();
    stopping.abort();
    const c = committing([sqliteError("SQLITE_BUSY")]);
    await assert.rejects(commitOutcome(c.commit, worked, failedAfter, stopping.signal), /sqlite_busy/);
    assert.equal(c.calls(), 1);
  });
});
