import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { planPod, podsBlockingDrain, type PodFacts } from "../../../src/domain/queue/eviction-plan.js";

const pod = (over: Partial<PodFacts>): PodFacts => ({ namespace: "app", name: "p", controllerKind: "ReplicaSet", phase: "Running", labels: {}, ...over });
const protectedNs = new Set(["app"]);

describe("planPod", () => {
  const cases: Array<[string, PodFacts, Parameters<typeof planPod>[2], ReturnType<typeof planPod>]> = [
    ["DaemonSet pods are left alone", pod({ controllerKind: "DaemonSet" }), null, { action: "skip", why: "daemonset" }],
    ["a pending Job pod is left alone", pod({ controllerKind: "Job", phase: "Pending" }), null, { action: "skip", why: "job-not-running" }],
    ["a succeeded Job pod is left alone", pod({ controllerKind: "Job", phase: "Succeeded" }), null, { action: "skip", why: "job-not-running" }],
    ["a failed Job pod is left alone", pod({ controllerKind: "Job", phase: "Failed" }), null, { action: "skip", why: "job-not-running" }],
    ["a running Job pod with no protected_job_pods is protected", pod({ controllerKind: "Job" }), null, { action: "refuse", why: "protected-job" }],
    ["a running Job pod with protected_job_pods {} is protected", pod({ controllerKind: "Job" }), {}, { action: "refuse", why: "protected-job" }],
    [
      "a running Job pod matching the selector is protected",
      pod({ controllerKind: "Job", labels: { keep: "yes" } }),
      { matchLabels: { keep: "yes" } },
      { action: "refuse", why: "protected-job" },
    ],
    [
      "a running Job pod not matching the selector is deleted",
      pod({ controllerKind: "Job" }),
      { matchLabels: { keep: "yes" } },
      { action: "delete", why: "unprotected-job" },
    ],
    ["a pod in a protected namespace is evicted as protected", pod({}), null, { action: "evict", protectedNamespace: true }],
    ["a pod in another namespace is evicted as unprotected", pod({ namespace: "batch" }), null, { action: "evict", protectedNamespace: false }],
    ["a bare pod (no controller) is evicted", pod({ controllerKind: null }), null, { action: "evict", protectedNamespace: true }],
  ];
  for (const [name, p, jobSelector, want] of cases) it(name, () => assert.deepEqual(planPod(p, protectedNs, jobSelector), want));
});

describe("podsBlockingDrain", () => {
  it("counts every pod but DaemonSet pods and Job pods that are Pending, Succeeded or Failed", () => {
    const pods = [
      pod({ name: "ds", controllerKind: "DaemonSet" }),
      pod({ name: "job-done", controllerKind: "Job", phase: "Succeeded" }),
      pod({ name: "job-pending", controllerKind: "Job", phase: "Pending" }),
      pod({ name: "job-running", controllerKind: "Job", phase: "Running" }),
      pod({ name: "web", controllerKind: "ReplicaSet" }),
    ];
    assert.deepEqual(
      podsBlockingDrain(pods).map((p) => p.name),
      ["job-running", "web"],
    );
    assert.deepEqual(podsBlockingDrain(pods.slice(0, 3)), []);
  });
});
