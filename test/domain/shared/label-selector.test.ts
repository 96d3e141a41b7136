import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { labelSelectorProblem, matchesLabelSelector, type LabelSelector } from "../../../src/domain/shared/label-selector.js";

describe("matchesLabelSelector", () => {
  const labels = { team: "neco", "app.kubernetes.io/name": "mysql", tier: "db" };
  const cases: Array<[string, LabelSelector, boolean]> = [
    ["empty selector selects everything", {}, true],
    ["matchLabels equal", { matchLabels: { team: "neco" } }, true],
    ["matchLabels different value", { matchLabels: { team: "maneki" } }, false],
    ["matchLabels missing key", { matchLabels: { zone: "a" } }, false],
    ["In", { matchExpressions: [{ key: "tier", operator: "In", values: ["web", "db"] }] }, true],
    ["In without the key", { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }, false],
    ["NotIn with another value", { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["web"] }] }, true],
    ["NotIn without the key", { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, true],
    ["NotIn with the value", { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] }, false],
    ["Exists", { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "Exists" }] }, true],
    ["DoesNotExist", { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] }, false],
    ["labels and expressions are AND'd", { matchLabels: { team: "neco" }, matchExpressions: [{ key: "tier", operator: "In", values: ["web"] }] }, false],
  ];
  for (const [name, selector, want] of cases) it(name, () => assert.equal(matchesLabelSelector(selector, labels), want));
});

describe("labelSelectorProblem", () => {
  const cases: Array<[string, LabelSelector, string | null]> = [
    ["a valid selector", { matchLabels: { "team.example.com/name": "neco" }, matchExpressions: [{ key: "a", operator: "Exists" }] }, null],
    ["In without values", { matchExpressions: [{ key: "a", operator: "In", values: [] }] }, "matchExpressions[0].values"],
    ["Exists with values", { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }, "matchExpressions[0].values"],
    ["a key with a space", { matchLabels: { "bad key": "x" } }, "matchLabels.bad key"],
    ["a value too long", { matchLabels: { a: "x".repeat(64) } }, "matchLabels.a"],
    ["an upper-case prefix", { matchExpressions: [{ key: "Example.com/a", operator: "Exists" }] }, "matchExpressions[0].key"],
    ["a bad value in a list", { matchExpressions: [{ key: "a", operator: "In", values: ["ok", "-bad"] }] }, "matchExpressions[0].values[1]"],
  ];
  for (const [name, selector, path] of cases) it(name, () => assert.equal(labelSelectorProblem(selector)?.path ?? null, path));
});
