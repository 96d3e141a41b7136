import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import type { EntryTransition } from "../../src/domain/queue/repair-plan.js";
import { commitOutcome, type CommitIfUnchanged } from "../../src/runner/repair-jobs.js";
import { StoreBusyError, StoreConflictError, StoreUnavailableError } from "../../src/store/store-errors.js";
import { entry } from "../domain/queue/repair-decision-support.js";

const busy = () => new StoreBusyError("store busy");

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
const failedAfter = (current: RepairEntry): EntryTransition => ({
  after: { ...current, status: "failed" },
  kind: "transition",
  reason: "every attempt failed",
});

describe("commitOutcome", () => {
  it("commits a job's outcome once another process releases the write lock", async () => {
    const c = committing([busy(), busy()]);
    const t = await commitOutcome(c.commit, worked, failedAfter, new AbortController().signal);
    assert.equal(t?.after.status, "failed");
    assert.equal(c.calls(), 3);
  });

  const final: Array<[string, Error]> = [
    ["an unavailable store (a read-only database, a full disk, etcd away)", new StoreUnavailableError("the database cannot be used (read-only)")],
    ["a conflict", new StoreConflictError("kept conflicting")],
    ["an error that is not the store's", new Error("boom")],
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
    const c = committing([busy()]);
    await assert.rejects(commitOutcome(c.commit, worked, failedAfter, stopping.signal), StoreBusyError);
    assert.equal(c.calls(), 1);
  });
});
