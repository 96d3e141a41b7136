import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { strayCordons } from "../../../src/domain/queue/stray-cordons.js";
import { SEC, T, entry } from "./repair-decision-support.js";

const KEY = "kintsugi.cybozu.io/cordoned-by";
/** Where a 300 s drain back-off `secondsAgo` before T leaves an entry (its transition time in whole seconds). */
const backedOff = (secondsAgo: number) =>
  ({
    status: "processing",
    stepStatus: "waiting",
    lastTransitionTime: T - secondsAgo * SEC - 500,
    drainBackoffCount: 1,
    drainBackoffExpire: T + (300 - secondsAgo) * SEC,
  }) as const;
const node = (name: string, owner?: string): { name: string; annotations: Record<string, string> } => ({
  name,
  annotations: owner === undefined ? {} : { [KEY]: owner },
});

describe("strayCordons", () => {
  const cases: Array<[string, ReturnType<typeof entry>[], string[]]> = [
    ["a draining entry keeps its cordon", [entry(1, { status: "processing", stepStatus: "draining" })], []],
    ["a watching entry keeps its cordon", [entry(1, { status: "processing", stepStatus: "watching" })], []],
    ["a processing entry between steps keeps its cordon", [entry(1, { status: "processing", step: 1, stepStatus: "waiting" })], []],
    ["a succeeded entry's cordon is stray", [entry(1, { status: "succeeded" })], ["n1"]],
    ["a failed entry's cordon is stray", [entry(1, { status: "failed" })], ["n1"]],
    ["a dequeued entry's cordon is stray", [], ["n1"]],
    ["a queued entry holds no cordon", [entry(1)], ["n1"]],
    ["an entry backing off holds no cordon", [entry(1, backedOff(10))], ["n1"]],
    ["an entry whose back-off expired before its drain was retried holds none either", [entry(1, backedOff(400))], ["n1"]],
    [
      "a processing entry between steps keeps its cordon after an earlier back-off (its expiry is kept)",
      [entry(1, { status: "processing", step: 1, stepStatus: "waiting", lastTransitionTime: T - 500, drainBackoffCount: 1, drainBackoffExpire: T - 60 * SEC })],
      [],
    ],
    [
      "so does one whose retried drain began in the second its back-off expired",
      [entry(1, { status: "processing", step: 1, stepStatus: "waiting", lastTransitionTime: T - 500, drainBackoffCount: 1, drainBackoffExpire: T - 1 })],
      [],
    ],
  ];
  for (const [name, entries, want] of cases) {
    it(name, () =>
      assert.deepEqual(
        strayCordons([node("n1", "repair-entry-1")], entries, KEY).map(([n]) => n),
        want,
      ),
    );
  }

  it("a control plane that gave up the turn holds no cordon; the others keep theirs", () => {
    const watching = (index: number) => entry(index, { status: "processing", stepStatus: "watching" });
    const nodes = [node("cp1", "repair-entry-1"), node("cp2", "repair-entry-2")];
    assert.deepEqual(strayCordons(nodes, [watching(1), watching(2)], KEY, new Set([1])), [["cp1", "repair-entry-1"]]);
  });

  it("leaves nodes without kintsugi's annotation, or with someone else's value, alone", () => {
    assert.deepEqual(strayCordons([node("plain"), node("other", "maintenance-bot")], [], KEY), []);
  });

  it("names the owner to uncordon as", () => {
    assert.deepEqual(strayCordons([node("n7", "repair-entry-7")], [], KEY), [["n7", "repair-entry-7"]]);
  });
});
