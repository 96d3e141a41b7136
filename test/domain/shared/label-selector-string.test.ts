import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { labelSelectorToString, matchesLabelSelector, parseLabelSelectorString, type LabelSelector } from "../../../src/domain/shared/label-selector.js";

// Each case is written both ways: the selector prints as the text, and the text parses back to the selector.
const ROUND_TRIPS: Array<[string, LabelSelector, string]> = [
  ["empty selector", {}, ""],
  ["one label", { matchLabels: { team: "neco" } }, "team=neco"],
  ["two labels, insertion order", { matchLabels: { z: "1", a: "2" } }, "z=1,a=2"],
  ["prefixed key", { matchLabels: { "app.kubernetes.io/name": "mysql" } }, "app.kubernetes.io/name=mysql"],
  ["empty value", { matchLabels: { a: "" } }, "a="],
  ["In", { matchExpressions: [{ key: "tier", operator: "In", values: ["web", "db"] }] }, "tier in (web,db)"],
  ["NotIn", { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] }, "tier notin (db)"],
  ["Exists", { matchExpressions: [{ key: "team", operator: "Exists" }] }, "team"],
  ["DoesNotExist", { matchExpressions: [{ key: "team", operator: "DoesNotExist" }] }, "!team"],
  [
    "everything together",
    {
      matchLabels: { a: "b" },
      matchExpressions: [
        { key: "c", operator: "In", values: ["x", "y"] },
        { key: "d", operator: "NotIn", values: ["z"] },
        { key: "e", operator: "Exists" },
        { key: "f", operator: "DoesNotExist" },
      ],
    },
    "a=b,c in (x,y),d notin (z),e,!f",
  ],
];

describe("labelSelectorToString", () => {
  for (const [name, selector, text] of ROUND_TRIPS) it(name, () => assert.equal(labelSelectorToString(selector), text));
});

describe("parseLabelSelectorString", () => {
  for (const [name, selector, text] of ROUND_TRIPS) {
    it(`${name} round-trips`, () => {
      assert.deepEqual(parseLabelSelectorString(text), selector);
      assert.equal(labelSelectorToString(parseLabelSelectorString(text)), text);
    });
  }

  const LENIENT: Array<[string, string, LabelSelector]> = [
    [
      "spaces around everything",
      "  a = b , c  in ( x , y ) , ! f ",
      {
        matchLabels: { a: "b" },
        matchExpressions: [
          { key: "c", operator: "In", values: ["x", "y"] },
          { key: "f", operator: "DoesNotExist" },
        ],
      },
    ],
    ["== is =", "a==b", { matchLabels: { a: "b" } }],
    ["!= is NotIn", "a!=b", { matchExpressions: [{ key: "a", operator: "NotIn", values: ["b"] }] }],
    ["in without a space before the list", "a in(x)", { matchExpressions: [{ key: "a", operator: "In", values: ["x"] }] }],
    [
      "a second value for a key becomes In",
      "a=b,a=c",
      {
        matchLabels: { a: "b" },
        matchExpressions: [{ key: "a", operator: "In", values: ["c"] }],
      },
    ],
    ["only white space", "   ", {}],
  ];
  for (const [name, text, want] of LENIENT) it(name, () => assert.deepEqual(parseLabelSelectorString(text), want));

  const INVALID: Array<[string, string, RegExp]> = [
    ["Gt has no LabelSelector form", "a>1", /the > and < operators in "a>1" have no LabelSelector form/],
    ["empty requirement", "a=b,,c", /empty requirement/],
    ["unclosed list", "a in (x,y", /unbalanced parentheses/],
    ["nested parentheses", "a in ((x))", /unbalanced parentheses/],
    ["bad key", "-a=b", /invalid label key "-a"/],
    ["bad value", "a=-b", /invalid label value "-b"/],
    ["bad value in a list", "a in (ok,-bad)", /invalid label value "-bad"/],
    ["two words", "a b", /cannot parse requirement "a b"/],
  ];
  for (const [name, text, want] of INVALID) {
    it(`rejects: ${name}`, () => {
      assert.throws(
        () => parseLabelSelectorString(text),
        (e: Error) => {
          assert.match(e.message, new RegExp(`^invalid label selector ${JSON.stringify(text).replace(/[()]/g, "\\$&")}: `));
          assert.match(e.message, want);
          return true;
        },
      );
    });
  }

  it("the empty string selects every label set", () => {
    const everything = parseLabelSelectorString("");
    const labelSets: Array<Record<string, string>> = [{}, { a: "b" }, { "kubernetes.io/metadata.name": "default" }];
    for (const labels of labelSets) {
      assert.equal(matchesLabelSelector(everything, labels), true);
    }
  });

  it("parsed selectors match as Kubernetes would", () => {
    const selector = parseLabelSelectorString("team=neco,tier notin (db),!legacy");
    assert.equal(matchesLabelSelector(selector, { team: "neco", tier: "web" }), true);
    assert.equal(matchesLabelSelector(selector, { team: "neco" }), true);
    assert.equal(matchesLabelSelector(selector, { team: "neco", tier: "db" }), false);
    assert.equal(matchesLabelSelector(selector, { team: "neco", legacy: "yes" }), false);
    assert.equal(matchesLabelSelector(selector, { team: "maneki" }), false);
  });
});
