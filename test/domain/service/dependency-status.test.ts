import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  dependencyCall,
  MAX_DEPENDENCY_ERROR_CHARS,
  notAsked,
  type DependencyCall,
  type DependencyStatus,
  type DependencyStep,
} from "../../../src/domain/service/dependency-status.js";
import { NOW } from "../../support/fixtures.js";

const SECOND = 1000;
const OK: DependencyCall = { ok: true };
const fail = (error: string): DependencyCall => ({ ok: false, error });

/** Runs calls at the given offsets from NOW; returns each change and the last status. */
function run(calls: ReadonlyArray<readonly [number, DependencyCall]>): { changes: Array<DependencyStep["change"]>; status: DependencyStatus } {
  let status = notAsked("sabakan");
  const changes: Array<DependencyStep["change"]> = [];
  for (const [at, call] of calls) {
    const step = dependencyCall(status, call, NOW + at);
    status = step.status;
    changes.push(step.change);
  }
  return { changes, status };
}

describe("dependencyCall: what kintsugi's calls say of sabakan or Kubernetes", () => {
  const cases: Array<{
    name: string;
    calls: ReadonlyArray<readonly [number, DependencyCall]>;
    changes: Array<DependencyStep["change"]>;
    status: DependencyStatus;
  }> = [
    { name: "no call: not asked, neither up nor down", calls: [], changes: [], status: notAsked("sabakan") },
    {
      name: "calls that work: no change of side, the last one remembered",
      calls: [
        [0, OK],
        [SECOND, OK],
      ],
      changes: [null, null],
      status: { ...notAsked("sabakan"), lastWorkedAt: NOW + SECOND },
    },
    {
      name: "a run of failures keeps its start and the newest message, and is a change only at its first",
      calls: [
        [0, OK],
        [SECOND, fail("refused")],
        [2 * SECOND, fail("timed out")],
      ],
      changes: [null, "down", null],
      status: { name: "sabakan", downSince: NOW + SECOND, failures: 2, error: "timed out", lastFailedAt: NOW + 2 * SECOND, lastWorkedAt: NOW },
    },
    {
      name: "the first call failing at start is down since that call",
      calls: [[0, fail("refused")]],
      changes: ["down"],
      status: { name: "sabakan", downSince: NOW, failures: 1, error: "refused", lastFailedAt: NOW, lastWorkedAt: null },
    },
    {
      name: "a call that works ends the run (back), keeping when the last failure was",
      calls: [
        [0, fail("refused")],
        [SECOND, OK],
        [2 * SECOND, fail("refused again")],
      ],
      changes: ["down", "back", "down"],
      status: { name: "sabakan", downSince: NOW + 2 * SECOND, failures: 1, error: "refused again", lastFailedAt: NOW + 2 * SECOND, lastWorkedAt: NOW + SECOND },
    },
  ];
  for (const { name, calls, changes, status } of cases) {
    it(name, () => assert.deepEqual(run(calls), { changes, status }));
  }

  it("a hostile server's endless message is cut to the bound, with an ellipsis", () => {
    const { status } = run([[0, fail("x".repeat(10_000))]]);
    assert.equal(status.error?.length, MAX_DEPENDENCY_ERROR_CHARS);
    assert.ok(status.error?.endsWith("…"));
  });
});
