import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandRun } from "./command-log.js";
import { ALL_FAULT_KINDS, planFaults, seedFrom, triggerOf } from "./fault-plan.js";
import { figuresOf, type InjectedFault } from "./fault-report.js";

const TTL_MS = 2000;

describe("the fault plan", () => {
  it("is the same for the same seed, and another for another seed", () => {
    assert.deepEqual(planFaults(42, 20, ALL_FAULT_KINDS, TTL_MS), planFaults(42, 20, ALL_FAULT_KINDS, TTL_MS));
    assert.notDeepEqual(planFaults(42, 20, ALL_FAULT_KINDS, TTL_MS), planFaults(43, 20, ALL_FAULT_KINDS, TTL_MS));
  });

  for (const seed of [1, 2, 3, 1234567]) {
    it(`meets every kind once before any repeats (seed ${seed})`, () => {
      const plan = planFaults(seed, 20, ALL_FAULT_KINDS, TTL_MS);
      assert.deepEqual(
        plan
          .slice(0, ALL_FAULT_KINDS.length)
          .map((f) => f.kind)
          .sort(),
        [...ALL_FAULT_KINDS].sort(),
      );
      assert.deepEqual(
        plan.map((f) => f.round),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });
  }

  it("draws distinct kinds when there are fewer rounds than kinds", () => {
    const kinds = planFaults(9, 3, ALL_FAULT_KINDS, TTL_MS).map((f) => f.kind);
    assert.equal(new Set(kinds).size, 3);
  });

  it("holds every fault past the lease TTL, strikes 0.2-1.2 s into a command, and cuts one of three members", () => {
    for (const f of planFaults(5, 200, ALL_FAULT_KINDS, TTL_MS)) {
      assert.ok(f.holdMs >= TTL_MS + 500 && f.holdMs < TTL_MS + 2000, `hold ${f.holdMs}`);
      assert.ok(f.offsetMs >= 200 && f.offsetMs < 1200, `offset ${f.offsetMs}`);
      assert.ok([0, 1, 2].includes(f.member));
    }
  });

  it("plans nothing without kinds", () => assert.deepEqual(planFaults(1, 5, [], TTL_MS), []));

  it("strikes the -before kinds right after a command, the others during one", () => {
    assert.deepEqual(
      ALL_FAULT_KINDS.filter((k) => triggerOf(k) === "before"),
      ["kill-before", "stop-before"],
    );
  });
});

describe("the fault seed", () => {
  const cases: Array<{ name: string; argv: string[]; env: NodeJS.ProcessEnv; seed: number | "random" | RegExp }> = [
    { name: "--seed wins over the environment", argv: ["--rounds", "3", "--seed", "17"], env: { KINTSUGI_FAULT_SEED: "5" }, seed: 17 },
    { name: "KINTSUGI_FAULT_SEED without --seed", argv: [], env: { KINTSUGI_FAULT_SEED: "5" }, seed: 5 },
    { name: "a new one when neither says", argv: [], env: {}, seed: "random" },
    { name: "an empty variable is none", argv: [], env: { KINTSUGI_FAULT_SEED: "" }, seed: "random" },
    { name: "a seed that is not a whole number is refused", argv: ["--seed", "1.5"], env: {}, seed: /non-negative integer, got "1.5"/ },
    { name: "a negative seed is refused", argv: [], env: { KINTSUGI_FAULT_SEED: "-3" }, seed: /non-negative integer, got "-3"/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.seed instanceof RegExp) assert.throws(() => seedFrom(c.argv, c.env), c.seed);
      else if (c.seed === "random") assert.ok(Number.isSafeInteger(seedFrom(c.argv, c.env)));
      else assert.equal(seedFrom(c.argv, c.env), c.seed);
    });
  }
});

describe("a fault's figures", () => {
  const fault: InjectedFault = { round: 1, kind: "kill-during", target: "r0", at: 10_000, healedAt: 14_000 };
  const run = (replica: string, start: number): CommandRun => ({
    replica,
    address: "10.0.0.1",
    entry: 1,
    step: 2,
    attempt: 1,
    operationId: `op-${replica}-${start}`,
    pid: start,
    start,
    lastSeen: start + 2000,
    ended: "end",
  });
  const cases: Array<{
    name: string;
    leadership: Array<{ replica: string; time: number }>;
    runs: CommandRun[];
    until?: number;
    kind?: InjectedFault["kind"];
    figures: ReturnType<typeof figuresOf>;
  }> = [
    {
      name: "the first leader after the fault, and its first command after it was elected",
      leadership: [
        { replica: "r0", time: 1000 },
        { replica: "r1", time: 12_100 },
        { replica: "r2", time: 30_000 },
      ],
      runs: [run("r0", 10_500), run("r1", 11_000), run("r1", 15_000), run("r1", 13_000)],
      figures: { elected: { replica: "r1", ms: 2100 }, firstCommand: { replica: "r1", ms: 3000 } },
    },
    {
      name: "the command of the next leader when the first one elected lost its lease before it acted",
      leadership: [
        { replica: "r0", time: 12_000 },
        { replica: "r2", time: 13_000 },
      ],
      runs: [run("r0", 11_000), run("r2", 14_500)],
      figures: { elected: { replica: "r0", ms: 2000 }, firstCommand: { replica: "r2", ms: 4500 } },
    },
    {
      name: "none while nobody was elected after it",
      leadership: [{ replica: "r0", time: 1000 }],
      runs: [run("r0", 11_000)],
      figures: { elected: null, firstCommand: null },
    },
    {
      name: "no command when the next fault came first",
      leadership: [{ replica: "r1", time: 12_000 }],
      runs: [run("r1", 20_000)],
      until: 18_000,
      figures: { elected: { replica: "r1", ms: 2000 }, firstCommand: null },
    },
    {
      name: "after an etcd member cut off, the first command after it, of the leader whose term went on",
      leadership: [{ replica: "r0", time: 1000 }],
      runs: [run("r0", 9000), run("r0", 16_000), run("r0", 13_000)],
      kind: "cut-member",
      figures: { elected: null, firstCommand: { replica: "r0", ms: 3000 } },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(figuresOf({ ...fault, kind: c.kind ?? fault.kind }, c.leadership, c.runs, c.until), c.figures));
});
