import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { strayCordons } from "../../src/domain/stray-cordons.js";
import { T, entry } from "./repair-decision-support.js";

const KEY = "kintsugi.cybozu.io/cordoned-by";
const node = (name: string, owner?: string): { name: string; annotations: Record<string, string> } => ({ name, annotations: owner === undefined ? {} : { [KEY]: owner } });

describe("strayCordons", () => {
  const cases: Array<[string, ReturnType<typeof entry>[], string[]]> = [
    ["a draining entry keeps its cordon", [entry(1, { status: "processing", stepStatus: "draining" })], []],
    ["a watching entry keeps its cordon", [entry(1, { status: "processing", stepStatus: "watching" })], []],
    ["a processing entry between steps keeps its cordon", [entry(1, { status: "processing", step: 1, stepStatus: "waiting" })], []],
    ["a succeeded entry's cordon is stray", [entry(1, { status: "succeeded" })], ["n1"]],
    ["a failed entry's cordon is stray", [entry(1, { status: "failed" })], ["n1"]],
    ["a dequeued entry's cordon is stray", [], ["n1"]],
    ["a queued entry holds no cordon", [entry(1)], ["n1"]],
    ["an entry backing off holds no cordon", [entry(1, { status: "processing", stepStatus: "waiting", drainBackoffCount: 1, drainBackoffExpire: T + 1000 })], ["n1"]],
  ];
  for (const [name, entries, want] of cases) {
    it(name, () => assert.deepEqual(strayCordons([node("n1", "repair-entry-1")], entries, KEY).map(([n]) => n), want));
  }

  it("leaves nodes without kintsugi's annotation, or with someone else's value, alone", () => {
    assert.deepEqual(strayCordons([node("plain"), node("other", "maintenance-bot")], [], KEY), []);
  });

  it("names the owner to uncordon as", () => {
    assert.deepEqual(strayCordons([node("n7", "repair-entry-7")], [], KEY), [["n7", "repair-entry-7"]]);
  });
});
