import { seededRandom } from "../support/seeded-random.js";

/**
 * The faults the suite injects. `kill` is SIGKILL of the leader, `stop` SIGSTOP of it (SIGCONT once the hold is over),
 * each `during` one of its commands or just `before` one (right after a command of its ended, when the next step's
 * command is due); `partition-leader` cuts the leader off from etcd; `partition-etcd` cuts etcd off from every
 * replica; `pause-etcd` is SIGSTOP of etcd; `cut-member` cuts one member of a 3-member etcd off from the others.
 */
export type FaultKind = "kill-during" | "kill-before" | "stop-during" | "stop-before" | "partition-leader" | "partition-etcd" | "pause-etcd" | "cut-member";

export const ALL_FAULT_KINDS: readonly FaultKind[] = [
  "kill-during",
  "kill-before",
  "stop-during",
  "stop-before",
  "partition-leader",
  "partition-etcd",
  "pause-etcd",
  "cut-member",
];

/** What a one-member etcd is struck with: every kind but the member cut off. */
export const ONE_MEMBER_KINDS: readonly FaultKind[] = ALL_FAULT_KINDS.filter((k) => k !== "cut-member");

/** What a three-member etcd is struck with: a member cut off, and the faults of the leader. */
export const THREE_MEMBER_KINDS: readonly FaultKind[] = ["cut-member", "kill-during", "kill-before", "stop-during", "stop-before"];

/** The kinds that cut links: they need network namespaces. */
export const PARTITION_KINDS: ReadonlySet<FaultKind> = new Set(["partition-leader", "partition-etcd", "cut-member"]);

/** The kinds during which no replica can reach etcd. */
export const OUTAGE_KINDS: ReadonlySet<FaultKind> = new Set(["partition-etcd", "pause-etcd"]);

/** The kinds that leave the leader be: its term may go on, and its next command is the recovery. */
export const LEADER_SPARED_KINDS: ReadonlySet<FaultKind> = new Set(["cut-member"]);

/** One fault as planned: what, when within the leader's command, for how long, and which etcd member. */
export interface PlannedFault {
  readonly round: number;
  readonly kind: FaultKind;
  /** When the trigger is a running command: how far into it the fault strikes. */
  readonly offsetMs: number;
  /** How long the fault lasts: longer than the lease TTL, so that the leader's lease runs out. */
  readonly holdMs: number;
  /** Which member `cut-member` cuts off (of 3). */
  readonly member: number;
}

/** Whether a fault strikes while a command of the leader runs, or right after one ended. */
export function triggerOf(kind: FaultKind): "during" | "before" {
  return kind.endsWith("-before") ? "before" : "during";
}

/**
 * The faults of `rounds` rounds, drawn from `seed`: every kind of `kinds` once, in a shuffled order, before any
 * repeats (so that a short run still meets each kind), then kinds drawn at random. Each strikes 0.2-1.2 s into the
 * leader's command (a successor elected a lease TTL later finds its watch over and the command still running) and
 * lasts the lease TTL plus 0.5-2 s. The same seed plans the same faults.
 */
export function planFaults(seed: number, rounds: number, kinds: readonly FaultKind[], leaseTtlMs: number): PlannedFault[] {
  if (kinds.length === 0) return [];
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const shuffled = [...kinds];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j] as FaultKind, shuffled[i] as FaultKind];
  }
  const plan: PlannedFault[] = [];
  for (let round = 0; round < rounds; round++) {
    const kind = round < shuffled.length ? (shuffled[round] as FaultKind) : (kinds[pick(kinds.length)] as FaultKind);
    plan.push({ round: round + 1, kind, offsetMs: 200 + pick(1000), holdMs: leaseTtlMs + 500 + pick(1500), member: pick(3) });
  }
  return plan;
}

/** The seed of a run: `--seed N` among `argv`, else KINTSUGI_FAULT_SEED, else a new one. */
export function seedFrom(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const at = argv.indexOf("--seed");
  const given = at >= 0 ? argv[at + 1] : env["KINTSUGI_FAULT_SEED"];
  if (given === undefined || given === "") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`the fault seed must be a non-negative integer, got ${JSON.stringify(given)}`);
  return seed;
}
