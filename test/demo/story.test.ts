import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterGeneration } from "../../src/domain/cluster/generation-record.js";
import type { RepairEvidence } from "../../src/domain/proof/repair-evidence.js";
import { createStory, formatClock, generationLine, proofWords } from "../../scripts/demo/story.js";
import { T, entry } from "../domain/queue/repair-decision-support.js";

describe("formatClock", () => {
  const cases: Array<[number, string]> = [
    [0, "00:00"],
    [59.9, "00:59"],
    [61, "01:01"],
    [30 * 60, "30:00"],
    [3599, "59:59"],
    [3600 + 125, "1:02:05"],
    [-3, "00:00"],
  ];
  for (const [seconds, expected] of cases) it(`${seconds} s is ${expected}`, () => assert.equal(formatClock(seconds), expected));
});

describe("createStory", () => {
  it("stamps each line with the scenario's clock, the wall clock divided by the scale, from begin() on", () => {
    const lines: string[] = [];
    let wall = T;
    const story = createStory(
      (l) => lines.push(l),
      () => wall,
      0.2,
    );
    story.tell("kintsugi", "before the scenario");
    wall += 5000;
    story.begin();
    wall += 12_000;
    story.tell("chaos", "r0m4 (10.69.0.4) broke: UNHEALTHY");
    assert.equal(story.now(), 60);
    assert.deepEqual(lines, ["00:00 [kintsugi] before the scenario", "01:00 [chaos] r0m4 (10.69.0.4) broke: UNHEALTHY"]);
  });
});

describe("generationLine", () => {
  const generation = (over: Partial<ClusterGeneration>): ClusterGeneration => ({
    sequence: 1,
    outcome: "generated",
    time: T,
    lastTime: T,
    repeats: 1,
    trigger: "event",
    policy: "weighted",
    generation: 2,
    cluster: null,
    changes: [],
    error: null,
    ...over,
  });
  // generationLine only asks whether there is a configuration, never what it holds.
  const cluster = {} as NonNullable<ClusterGeneration["cluster"]>;
  const cases: Array<[string, ClusterGeneration, string]> = [
    ["one change", generation({ cluster, changes: ["add worker 10.69.0.5"] }), "cluster generation 2: add worker 10.69.0.5"],
    [
      "many changes: the first, and how many more (the first generation lists every node)",
      generation({
        generation: 1,
        cluster,
        changes: ["initialize the cluster from the template: 15 nodes", "add control plane 10.69.0.1", "add worker 10.69.0.2"],
      }),
      "cluster generation 1: initialize the cluster from the template: 15 nodes (+2 more: npx kintsugi cluster history)",
    ],
    ["a failure", generation({ error: "no template" }), "cluster generation failed: no template"],
    ["a recovery", generation({}), "cluster generation works again"],
  ];
  for (const [name, g, expected] of cases) it(name, () => assert.equal(generationLine(g), expected));
});

describe("proofWords: how a success was proven, as the story tells it", () => {
  const evidence = (over: Partial<RepairEvidence>): RepairEvidence => ({
    step: 0,
    bootIdBefore: null,
    bootIdAfter: null,
    since: { health_check: T },
    dwellStartedAt: T,
    dwellStarts: 1,
    provenAt: T,
    ...over,
  });
  const cases: Array<[string, RepairEvidence | undefined, string]> = [
    ["no proof required (CKE's health check alone): nothing to add", undefined, ""],
    ["sabakan HEALTHY again", evidence({ since: { health_check: T, sabakan_healthy: T } }), "; repair proven: sabakan says HEALTHY again (sabakan_healthy)"],
    ["the node Ready again", evidence({ since: { health_check: T, node_ready: T } }), "; repair proven: the node is Ready again (node_ready)"],
    [
      "healthy before any repair command ran",
      evidence({ provenAt: null, dwellStartedAt: null, dwellStarts: 0 }),
      "; nothing was repaired: it was healthy before any repair command ran",
    ],
  ];
  for (const [name, e, expected] of cases) it(name, () => assert.equal(proofWords(entry(1, e === undefined ? {} : { evidence: e })), expected));
});
