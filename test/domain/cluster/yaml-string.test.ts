import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { clusterDocument, clusterYaml, yamlString } from "../../../src/domain/cluster/cluster-yaml.js";
import type { GeneratedCluster } from "../../../src/domain/cluster/types.js";

describe("yamlString", () => {
  const cases: Array<[string, string]> = [
    ["cs", "cs"],
    ["10.0.0.1", "10.0.0.1"],
    ["cke.cybozu.com/role", "cke.cybozu.com/role"],
    ["rack0", "rack0"],
    ["m_01-a", "m_01-a"],
    ["0", '"0"'],
    ["42", '"42"'],
    ["-1", '"-1"'],
    ["1.20", '"1.20"'],
    ["1e3", '"1e3"'],
    ["1_000", '"1_000"'],
    ["0x1F", '"0x1F"'],
    ["0o17", '"0o17"'],
    ["true", '"true"'],
    ["False", '"False"'],
    ["on", '"on"'],
    ["OFF", '"OFF"'],
    ["yes", '"yes"'],
    ["n", '"n"'],
    ["null", '"null"'],
    ["~", '"~"'],
    ["2025-01-15T12:00:00Z", '"2025-01-15T12:00:00Z"'],
    ["2025-01", "2025-01"],
    ["", '""'],
    ["a b", '"a b"'],
    ["key: value", '"key: value"'],
    ["-dash", '"-dash"'],
    [".inf", '".inf"'],
    ["*alias", '"*alias"'],
    ["#comment", '"#comment"'],
    ['quote"d', '"quote\\"d"'],
    ["line\nbreak", '"line\\nbreak"'],
    ["ユニコード", '"ユニコード"'],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} is written ${want}`, () => assert.equal(yamlString(text), want));

  it("every case reads back as the same string with YAML 1.2 and with YAML 1.1 (Go's yaml.v2)", () => {
    for (const [text] of cases) {
      const doc = `k: ${yamlString(text)}\n`;
      assert.deepEqual(parse(doc), { k: text }, `1.2: ${doc}`);
      assert.deepEqual(parse(doc, { version: "1.1" }), { k: text }, `1.1: ${doc}`);
    }
  });
});

describe("clusterYaml reads back as clusterDocument, whatever the label values", () => {
  const awkward = ["0", "on", "yes", "1.5", "2025-01-15", "a: b", "#x", "- y", "", "ok", "10.0.0.1", "  padded  ", "tab\there", "\u00e9"];
  const cluster: GeneratedCluster = {
    name: "c",
    service_subnet: "10.68.0.0/16",
    control_plane_tolerations: ["on", "x"],
    extra: { options: { kubelet: { extra_args: ["--a=1"], flag: "on", port: 10250, sexagesimal: "1:20" } }, dns_servers: ["10.0.0.53"] },
    nodes: awkward.map((v, i) => ({
      address: `10.0.0.${i + 1}`,
      user: v === "" ? "u" : v,
      control_plane: i === 0,
      labels: { [`example.com/k${i}`]: v, plain: "v" },
      annotations: { note: v },
      taints: [{ key: "k", value: v, effect: "NoSchedule" as const }],
    })),
  };

  for (const version of ["1.2", "1.1"] as const) {
    it(`with YAML ${version}`, () => {
      const expected = clusterDocument(cluster);
      // An empty taint value is left out, as CKE's omitempty does.
      assert.deepEqual(parse(clusterYaml(cluster), { version }), expected);
    });
  }
});
