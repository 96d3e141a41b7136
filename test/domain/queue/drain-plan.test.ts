import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dryRunRefusal, planDrain, type EvictionOutcome } from "../../../src/domain/queue/drain-plan.js";
import type { PodFacts } from "../../../src/domain/queue/eviction-plan.js";

const pod = (name: string, over: Partial<PodFacts> = {}): PodFacts => ({
  namespace: "app",
  name,
  controllerKind: "ReplicaSet",
  phase: "Running",
  labels: {},
  ...over,
});
const protectedNs = new Set(["db"]);
const keep = { matchLabels: { keep: "yes" } };

describe("planDrain", () => {
  const cases: Array<{ name: string; pods: PodFacts[]; want: ReturnType<typeof planDrain> }> = [
    { name: "no pods: nothing to remove", pods: [], want: { kind: "remove", removals: [] } },
    {
      name: "a protected running Job pod listed last refuses the whole drain",
      pods: [pod("web"), pod("report", { controllerKind: "Job" }), pod("backup", { namespace: "batch", controllerKind: "Job", labels: { keep: "yes" } })],
      want: { kind: "refused", why: "protected job-managed pod exists: batch/backup" },
    },
    {
      name: "evictions (protected or not) and deletions, in list order; DaemonSet and finished Job pods stay",
      pods: [
        pod("ds", { controllerKind: "DaemonSet" }),
        pod("mysql", { namespace: "db" }),
        pod("report", { controllerKind: "Job" }),
        pod("done", { controllerKind: "Job", phase: "Succeeded", labels: { keep: "yes" } }),
        pod("web"),
      ],
      want: {
        kind: "remove",
        removals: [
          { pod: pod("mysql", { namespace: "db" }), action: "evict", protectedNamespace: true },
          { pod: pod("report", { controllerKind: "Job" }), action: "delete" },
          { pod: pod("web"), action: "evict", protectedNamespace: false },
        ],
      },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(planDrain(c.pods, protectedNs, keep), c.want));
});

describe("dryRunRefusal", () => {
  const inDb = { pod: pod("mysql", { namespace: "db" }), action: "evict" as const, protectedNamespace: true };
  const inApp = { pod: pod("web"), action: "evict" as const, protectedNamespace: false };
  const refused: EvictionOutcome = { kind: "refused", message: "budget" };
  const error: EvictionOutcome = { kind: "error", message: "evict (dry run): pod/x: timed out after 10 s" };
  const cases: Array<[string, typeof inDb | typeof inApp, EvictionOutcome, string | null]> = [
    ["an evictable pod passes", inDb, { kind: "evicted" }, null],
    ["a pod already gone passes", inDb, { kind: "not-found" }, null],
    ["a refusal in a protected namespace fails the drain", inDb, refused, "dry-run eviction of db/mysql was refused: budget"],
    ["a refusal elsewhere passes: the drain deletes the pod", inApp, refused, null],
    ["an error in a protected namespace fails the drain", inDb, error, "dry-run eviction of db/mysql failed: evict (dry run): pod/x: timed out after 10 s"],
    ["an error elsewhere fails the drain too", inApp, error, "dry-run eviction of app/web failed: evict (dry run): pod/x: timed out after 10 s"],
  ];
  for (const [name, removal, outcome, want] of cases) it(name, () => assert.equal(dryRunRefusal(removal, outcome), want));
});
