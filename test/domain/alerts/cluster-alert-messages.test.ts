import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alertForClusterGeneration, LISTED_CHANGES, type ClusterGenerationPayload } from "../../../src/domain/alerts/cluster-alert-messages.js";

const TIME = "2026-11-22T06:00:00Z";
const payload = (over: Partial<ClusterGenerationPayload>): ClusterGenerationPayload => ({
  sequence: "7",
  outcome: "GENERATED",
  generation: 3,
  time: TIME,
  trigger: "SCHEDULE",
  changes: [],
  error: null,
  ...over,
});

describe("alertForClusterGeneration", () => {
  const changes = (n: number) => Array.from({ length: n }, (_, i) => `change ${i + 1}`);
  const cases: Array<{ name: string; input: ClusterGenerationPayload; severity: string; title: string; text: string }> = [
    {
      name: "a new configuration with one change",
      input: payload({ changes: ["add worker 10.0.0.1"] }),
      severity: "info",
      title: "cluster configuration generation 3: 1 change",
      text: "add worker 10.0.0.1",
    },
    {
      name: "a new configuration lists every change up to the limit",
      input: payload({ changes: changes(LISTED_CHANGES) }),
      severity: "info",
      title: `cluster configuration generation 3: ${LISTED_CHANGES} changes`,
      text: changes(LISTED_CHANGES).join("\n"),
    },
    {
      name: "a new configuration with more changes says how many more",
      input: payload({ changes: changes(LISTED_CHANGES + 5) }),
      severity: "info",
      title: `cluster configuration generation 3: ${LISTED_CHANGES + 5} changes`,
      text: [...changes(LISTED_CHANGES), "... and 5 more"].join("\n"),
    },
    {
      name: "a failure names the generation in force",
      input: payload({ outcome: "FAILED", error: "sabakan at x: answered HTTP 503" }),
      severity: "warning",
      title: "cluster generation failed: generation 3 stays in force",
      text: "sabakan at x: answered HTTP 503",
    },
    {
      name: "a failure before any generation says so",
      input: payload({ outcome: "FAILED", generation: 0, error: "cannot initialize the cluster: not enough healthy machines" }),
      severity: "warning",
      title: "cluster generation failed: no cluster configuration has been generated yet",
      text: "cannot initialize the cluster: not enough healthy machines",
    },
    {
      name: "the first good round after a failure",
      input: payload({ outcome: "UNCHANGED" }),
      severity: "info",
      title: "cluster generation works again",
      text: "generation 3 is up to date with sabakan's machines",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const alert = alertForClusterGeneration(c.input);
      assert.equal(alert.severity, c.severity);
      assert.equal(alert.title, c.title);
      assert.equal(alert.text, c.text);
      assert.deepEqual(alert.fields, { generation: String(c.input.generation), trigger: "schedule", time: TIME });
    });
  }
});
