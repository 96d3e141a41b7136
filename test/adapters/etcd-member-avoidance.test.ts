import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isBrokenCircuitError } from "cockatiel";
import { GRPCDeadlineExceededError, GRPCUnavailableError } from "etcd3";
import { MemberAvoidance, unanswered } from "../../src/adapters/etcd-client.js";

const MEMBERS = ["http://a:2379", "http://b:2379", "http://c:2379"];
const [A, B, C] = MEMBERS as [string, string, string];
const AVOID_MS = 5000;

const timedOut = () => new GRPCDeadlineExceededError("4 DEADLINE_EXCEEDED: Deadline exceeded after 2.000s");
const dropped = () => new GRPCUnavailableError("14 UNAVAILABLE: Connection dropped");
const leaderChanged = () => new GRPCUnavailableError("14 UNAVAILABLE: etcdserver: leader changed");

/** A call through `member`'s policy at `at` ms, and the error it fails with once sent. */
type Call = { at: number; member: string; fails?: Error };

/** Makes the calls one after another; says of each whether it was sent or skipped. */
async function replay(calls: readonly Call[]): Promise<string[]> {
  let now = 0;
  const avoidance = new MemberAvoidance(MEMBERS, AVOID_MS, () => now);
  const outcomes: string[] = [];
  for (const call of calls) {
    now = call.at;
    const outcome = await avoidance
      .policyFor(call.member)
      .execute(() => {
        if (call.fails) throw call.fails;
        return "sent";
      })
      .catch((err: unknown) => (isBrokenCircuitError(err) ? "skipped" : "sent"));
    outcomes.push(outcome);
  }
  return outcomes;
}

describe("which etcd members calls skip", () => {
  const cases: Array<{ name: string; calls: Call[]; outcomes: string[] }> = [
    {
      name: "a member whose call timed out is skipped until the pause is over, then tried again",
      calls: [
        { at: 0, member: A, fails: timedOut() },
        { at: 100, member: A },
        { at: 4999, member: A },
        { at: 5000, member: A },
      ],
      outcomes: ["sent", "skipped", "skipped", "sent"],
    },
    {
      name: "a dropped connection (a ping unanswered) makes the member skipped too, the others are not",
      calls: [
        { at: 0, member: B, fails: dropped() },
        { at: 10, member: A },
        { at: 20, member: B },
        { at: 30, member: C },
      ],
      outcomes: ["sent", "sent", "skipped", "sent"],
    },
    {
      name: "an answer of etcd's (leader changed) does not make the member skipped",
      calls: [
        { at: 0, member: A, fails: leaderChanged() },
        { at: 10, member: A },
      ],
      outcomes: ["sent", "sent"],
    },
    {
      name: "with every member failed lately, calls go on being sent to each",
      calls: [
        { at: 0, member: A, fails: timedOut() },
        { at: 10, member: B, fails: timedOut() },
        { at: 20, member: A },
        { at: 30, member: C, fails: timedOut() },
        { at: 40, member: B, fails: timedOut() },
        { at: 50, member: A },
      ],
      outcomes: ["sent", "sent", "skipped", "sent", "sent", "sent"],
    },
    {
      name: "a member that answers after a failure is not skipped any more",
      calls: [
        { at: 0, member: A, fails: timedOut() },
        { at: 10, member: B, fails: timedOut() },
        { at: 20, member: C, fails: timedOut() },
        { at: 30, member: C },
        { at: 40, member: A },
        { at: 50, member: C },
      ],
      outcomes: ["sent", "sent", "sent", "sent", "skipped", "sent"],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      assert.deepEqual(await replay(c.calls), c.outcomes);
    });
  }

  it("counts as unanswered the recoverable errors that no member answered, not etcd's refusals", () => {
    assert.deepEqual([timedOut(), dropped(), leaderChanged(), new Error("x")].map(unanswered), [true, true, false, false]);
  });
});
