import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_VARIABLES_TEXT_BYTES, readCkeQueryVariables, variablesText } from "../../../src/domain/sabakan/cke-query-variables.js";
import { printableJsonText } from "../../../src/domain/shared/untrusted-text.js";

// CKE reads set-variables' FILE with encoding/json into sabakan.QueryVariables (pkg/ckecli/cmd/auto_repair_set_variables.go,
// sabakan/query.go): unknown keys ignored at every level, keys matched without regard to case, wrong types refused.
describe("readCkeQueryVariables: set-variables' FILE read as CKE reads it", () => {
  const ok: Array<{ name: string; text: string; variables: unknown; ignored: string[] }> = [
    {
      name: "CKE's documented example",
      text: `{"having": {"labels": [{"name": "foo", "value": "bar"}], "racks": [0, 1, 2], "roles": ["worker"], "states": ["UNREACHABLE"], "minDaysBeforeRetire": 90}, "notHaving": {}}`,
      variables: {
        having: { labels: [{ name: "foo", value: "bar" }], racks: [0, 1, 2], roles: ["worker"], states: ["UNREACHABLE"], minDaysBeforeRetire: 90 },
        notHaving: {},
      },
      ignored: [],
    },
    { name: "an empty object: no variables", text: "{}", variables: { having: null, notHaving: null }, ignored: [] },
    {
      name: "null members are absent ones",
      text: `{"having": null, "notHaving": {"racks": null, "roles": ["boot"]}}`,
      variables: { having: null, notHaving: { roles: ["boot"] } },
      ignored: [],
    },
    {
      name: "unknown keys at every level are ignored and named",
      text: `{"having": {"rack": [1], "states": ["UNHEALTHY"], "labels": [{"name": "a", "value": "b", "op": "="}]}, "comment": "x"}`,
      variables: { having: { labels: [{ name: "a", value: "b" }], states: ["UNHEALTHY"] }, notHaving: null },
      ignored: ["comment", "having.rack", "having.labels[0].op"],
    },
    {
      name: "keys match fields without regard to case, as Go's encoding/json",
      text: `{"Having": {"RACKS": [3]}, "nothaving": {"Roles": ["boot"], "mindaysbeforeretire": 7}}`,
      variables: { having: { racks: [3] }, notHaving: { roles: ["boot"], minDaysBeforeRetire: 7 } },
      ignored: [],
    },
    {
      name: "a label without a value has Go's zero value",
      text: `{"having": {"labels": [{"name": "a"}]}}`,
      variables: { having: { labels: [{ name: "a", value: "" }] }, notHaving: null },
      ignored: [],
    },
  ];
  for (const c of ok) {
    it(c.name, () => assert.deepEqual(readCkeQueryVariables(c.text), { ok: true, variables: c.variables, ignored: c.ignored }));
  }

  const refused: Array<{ name: string; text: string; message: RegExp }> = [
    { name: "not JSON", text: "{ having: ", message: /^not valid JSON: / },
    {
      name: "a list",
      text: "[]",
      message: /^must be a JSON object with "having" and\/or "notHaving" \(anything else would search every machine\), got a list$/,
    },
    { name: "null, which CKE would take as a search of every machine", text: "null", message: /^must be a JSON object .* got null$/ },
    { name: "having not an object", text: `{"having": [1]}`, message: /^having: must be an object \(sabakan's MachineParams\), got \[1\]$/ },
    { name: "racks not a list", text: `{"having": {"racks": 1}}`, message: /^having\.racks: must be a list, got 1$/ },
    { name: "a rack not an integer", text: `{"notHaving": {"racks": [1.5]}}`, message: /^notHaving\.racks\[0\]: must be an integer, got 1\.5$/ },
    { name: "a state not a string", text: `{"having": {"states": [1]}}`, message: /^having\.states\[0\]: must be a string, got 1$/ },
    {
      name: "a label not an object",
      text: `{"having": {"labels": ["a=b"]}}`,
      message: /^having\.labels\[0\]: must be an object with name and value, got "a=b"$/,
    },
    {
      name: "minDaysBeforeRetire not an integer",
      text: `{"having": {"minDaysBeforeRetire": "90"}}`,
      message: /^having\.minDaysBeforeRetire: must be an integer, got "90"$/,
    },
    {
      name: "two keys for one field",
      text: `{"having": {}, "HAVING": {"racks": [1]}}`,
      message: /^HAVING: "having" already gives having \(keys match fields without regard to case, as in CKE\)$/,
    },
    {
      name: "a C1 control a terminal acts on (CSI), raw in a string",
      text: `{"having": {"roles": ["a\u009b2J"]}}`,
      message: /^holds the control character U\+009B, which a terminal would act on when get-variables prints the text; write it as \\u009b$/,
    },
    { name: "a bidirectional override, raw in a string", text: `{"having": {"roles": ["\u202eboot"]}}`, message: /^holds the control character U\+202E/ },
    { name: "larger than the bound", text: `{"having": {"roles": ["${"r".repeat(MAX_VARIABLES_TEXT_BYTES)}"]}}`, message: /^larger than 65536 bytes/ },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}`, () => {
      const result = readCkeQueryVariables(c.text);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, c.message);
    });
  }
});

describe("variablesText: variables set from GraphQL fields, as text", () => {
  it("is ckecli's JSON layout without null members, and reads back to the same variables", () => {
    const variables = { having: { states: ["UNHEALTHY" as const], racks: null }, notHaving: null };
    const text = variablesText(variables);
    assert.equal(text, `${JSON.stringify({ having: { states: ["UNHEALTHY"] } }, null, 4)}\n`);
    assert.deepEqual(readCkeQueryVariables(text), { ok: true, variables: { having: { states: ["UNHEALTHY"] }, notHaving: null }, ignored: [] });
  });
});

describe("printableJsonText: stored JSON text printed as it is, but for what a terminal acts on", () => {
  const cases: Array<{ name: string; text: string; want: string }> = [
    { name: "plain JSON with its layout is unchanged", text: `{\t"having": {"roles": ["\\u001b"]}\r\n}`, want: `{\t"having": {"roles": ["\\u001b"]}\r\n}` },
    { name: "non-ASCII text is unchanged", text: `{"having": {"roles": ["é", "東京"]}}`, want: `{"having": {"roles": ["é", "東京"]}}` },
    { name: "raw C1, DEL and bidi controls become JSON escapes", text: `["\u009b2J\u007f\u202e"]`, want: `["\\u009b2J\\u007f\\u202e"]` },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(printableJsonText(c.text), c.want);
      assert.deepEqual(JSON.parse(printableJsonText(c.text)), JSON.parse(c.text), "the same JSON");
    });
  }
});
