import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { LeaderTerms, type LeaderTerm } from "../../src/wiring/leader-term.js";
import { soleLeadership, termGuard } from "../../src/wiring/leadership.js";
import type { Workers } from "../../src/wiring/workers.js";

type Key = { key: string; createRevision: string } | null;
const A: Key = { key: "/k/leader/a", createRevision: "10" };
const A_AGAIN: Key = { key: "/k/leader/a2", createRevision: "30" };
const A_SAME_NAME_NEW_KEY: Key = { key: "/k/leader/a", createRevision: "31" };

describe("termGuard", () => {
  const cases: Array<{ name: string; atStart: Key; later: Key; holds: boolean }> = [
    { name: "holds while the election key is the one the term began with", atStart: A, later: A, holds: true },
    { name: "fails once this replica is deposed", atStart: A, later: null, holds: false },
    { name: "fails when this replica was elected again with another key (a later term's)", atStart: A, later: A_AGAIN, holds: false },
    { name: "fails when the key was made anew under the same name", atStart: A, later: A_SAME_NAME_NEW_KEY, holds: false },
    { name: "never holds for a term that began without leading", atStart: null, later: A, holds: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let current: Key = c.atStart;
      const guard = termGuard({ current: () => current });
      current = c.later;
      assert.deepEqual(guard.current(), c.holds ? c.later : null);
    });
  }
});

/** A term whose end the test controls; records what happened in `log`. */
function controlledTerm(log: string[], name: string): { term: LeaderTerm; finishEnd: () => void } {
  let finishEnd!: () => void;
  const ended = new Promise<void>((resolve) => (finishEnd = resolve));
  return {
    term: {
      workers: { name } as unknown as Workers,
      halt: () => log.push(`${name} halted`),
      end: async () => {
        log.push(`${name} ending`);
        await ended;
        log.push(`${name} ended`);
      },
    },
    finishEnd,
  };
}

describe("LeaderTerms", () => {
  const silent = pino({ level: "silent" });

  it("begins the next term only after the last one ended, and hands out no workers from the deposition on", async () => {
    const log: string[] = [];
    const made: Array<ReturnType<typeof controlledTerm>> = [];
    const terms = new LeaderTerms(() => {
      const t = controlledTerm(log, `term${made.length + 1}`);
      made.push(t);
      log.push(`${`term${made.length}`} began`);
      return t.term;
    }, silent);
    terms.elected();
    await terms.settled();
    assert.notEqual(terms.workers(), null);
    terms.deposed("lease lost");
    assert.equal(terms.workers(), null, "no workers from the instant of deposition");
    assert.deepEqual(log, ["term1 began", "term1 halted"], "its commands are aborted in the same turn as the deposition");
    terms.elected();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ["term1 began", "term1 halted", "term1 ending"], "the next term waits for the last to end");
    made[0]?.finishEnd();
    await terms.settled();
    assert.deepEqual(log, ["term1 began", "term1 halted", "term1 ending", "term1 ended", "term2 began"]);
    made[1]?.finishEnd();
    await terms.close();
  });

  it("does not begin a term whose election was followed by a deposition before it could begin", async () => {
    let begun = 0;
    const terms = new LeaderTerms(() => {
      begun++;
      return { workers: {} as Workers, halt: () => undefined, end: async () => undefined };
    }, silent);
    terms.elected();
    terms.deposed("lease lost at once");
    await terms.settled();
    assert.equal(begun, 0);
    assert.equal(terms.workers(), null);
  });

  it("reports a term that cannot begin through settled(), and begins again at the next election", async () => {
    let fail = true;
    const terms = new LeaderTerms(() => {
      if (fail) throw new Error("not a cron expression");
      return { workers: {} as Workers, halt: () => undefined, end: async () => undefined };
    }, silent);
    terms.elected();
    await assert.rejects(terms.settled(), /not a cron expression/);
    fail = false;
    terms.deposed("again");
    terms.elected();
    await terms.settled();
    assert.notEqual(terms.workers(), null);
    await terms.close();
  });
});

describe("soleLeadership", () => {
  it("leads from start to stop, and names itself", async () => {
    const events: string[] = [];
    const sole = soleLeadership("boot-1");
    sole.watch({ elected: () => events.push("elected"), deposed: (why) => events.push(`deposed: ${why}`) });
    assert.equal(sole.isLeader(), false);
    sole.start();
    assert.deepEqual([sole.isLeader(), sole.leader()], [true, "boot-1"]);
    await sole.stop();
    assert.deepEqual(events, ["elected", "deposed: this replica is stopping"]);
    assert.equal(sole.leader(), null);
  });
});
