import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { isCidr, parseTemplate, parseWeight, templateSpareNodeTaintKey } from "../../../src/domain/cluster/template.js";

const CP = `- user: cybozu\n  control_plane: true\n`;
const W = (role?: string, extra = "") => `- user: cybozu\n${role === undefined ? "" : `  labels:\n    cke.cybozu.com/role: "${role}"\n`}${extra}`;
const doc = (nodes: string, head = "name: cluster\nservice_subnet: 10.68.0.0/16\n") => `${head}nodes:\n${nodes}`;

describe("parseTemplate", () => {
  it("accepts the seed's minimal template and passes unknown cluster-wide keys through", () => {
    const r = parseTemplate(
      doc(CP + W(), "name: cluster\nservice_subnet: 10.68.0.0/16\noptions:\n  kubelet:\n    cgroup_driver: systemd\ncontrol_plane_tolerations: [foo]\n"),
    );
    assert.ok(r.ok);
    assert.deepEqual(r.template.extra, { options: { kubelet: { cgroup_driver: "systemd" } } });
    assert.deepEqual(r.template.control_plane_tolerations, ["foo"]);
    assert.deepEqual(r.template.nodes[1], { user: "cybozu", control_plane: false, labels: {}, annotations: {}, taints: [] });
  });

  it("accepts JSON", () => {
    const r = parseTemplate(JSON.stringify({ name: "c", service_subnet: "fd00::/108", nodes: [{ user: "u", control_plane: true }, { user: "u" }] }));
    assert.ok(r.ok);
  });

  it("rejects text that is not YAML", () => {
    const r = parseTemplate("name: [unclosed");
    assert.ok(!r.ok);
    assert.match(r.errors[0] ?? "", /neither YAML nor JSON/);
  });

  const rules: Array<{ name: string; text: string; want: RegExp }> = [
    { name: "at least two node templates", text: doc(CP), want: /^nodes: at least two node templates are required .* got 1$/ },
    {
      name: "a control plane template is required",
      text: doc(W() + W()),
      want: /^nodes: exactly one node template must have control_plane: true, found none$/,
    },
    {
      name: "at most one control plane template",
      text: doc(CP + CP + W()),
      want: /^nodes\[0\] \(control plane\), nodes\[1\] \(control plane\): exactly one .* found 2$/,
    },
    {
      name: "role required with two non-control-plane templates",
      text: doc(CP + W("cs") + W()),
      want: /^nodes\[2\]: needs a non-empty cke.cybozu.com\/role label, as there are 2 non-control-plane templates$/,
    },
    {
      name: "roles must be distinct",
      text: doc(CP + W("ss") + W("ss")),
      want: /^nodes\[2\] \(role "ss"\): cke.cybozu.com\/role "ss" is already used by nodes\[1\] \(role "ss"\)$/,
    },
    { name: "no address in a node template", text: doc(CP + W("ss", "  address: 10.0.0.1\n")), want: /^nodes\[1\] \(role "ss"\): must not have an address/ },
    {
      name: "weight must be a number",
      text: doc(CP + W("ss", "").replace(`"ss"\n`, `"ss"\n    cke.cybozu.com/weight: "heavy"\n`)),
      want: /^nodes\[1\] \(role "ss"\): cke.cybozu.com\/weight must be a positive number, got "heavy"$/,
    },
    {
      name: "weight must be positive",
      text: doc(CP + W("ss").replace(`"ss"\n`, `"ss"\n    cke.cybozu.com/weight: "0"\n`)),
      want: /^nodes\[1\] \(role "ss"\): cke.cybozu.com\/weight must be a positive number, got "0"$/,
    },
    { name: "name must be non-empty", text: doc(CP + W(), 'name: ""\nservice_subnet: 10.68.0.0/16\n'), want: /^name: must be a non-empty string$/ },
    {
      name: "service_subnet must be a CIDR",
      text: doc(CP + W(), "name: c\nservice_subnet: 10.68.0.0\n"),
      want: /^service_subnet: must be a CIDR such as 10.68.0.0\/16, got "10.68.0.0"$/,
    },
    {
      name: "user is required",
      text: doc(CP + "- control_plane: false\n  labels:\n    cke.cybozu.com/role: gpu\n"),
      want: /^nodes\[1\] \(role "gpu"\): user must be a non-empty string$/,
    },
    {
      name: "taint effect must be known",
      text: doc(CP + W("ss", "  taints:\n  - key: k\n    effect: Sometimes\n")),
      want: /^nodes\[1\] \(role "ss"\): taints\[0\]: effect must be one of NoSchedule, PreferNoSchedule, NoExecute/,
    },
    {
      name: "label values must be strings",
      text: doc(CP + W("ss").replace(`"ss"\n`, `"ss"\n    cke.cybozu.com/weight: 6.0\n`)),
      want: /^nodes\[1\] \(role "ss"\): labels: cke.cybozu.com\/weight must be a string/,
    },
  ];
  for (const c of rules) {
    it(`rule: ${c.name}`, () => {
      const r = parseTemplate(c.text);
      assert.ok(!r.ok, "should be rejected");
      assert.ok(
        r.errors.some((e) => c.want.test(e)),
        `got ${JSON.stringify(r.errors)}`,
      );
    });
  }

  it("a single role-less worker template is fine; the weight defaults to 1.0", () => {
    const r = parseTemplate(doc(CP + W()));
    assert.ok(r.ok);
    assert.equal(parseWeight(r.template.nodes[1]?.labels ?? {}), 1);
  });
});

describe("isCidr / parseWeight", () => {
  const cidrs: Array<[string, boolean]> = [
    ["10.68.0.0/16", true],
    ["fd00::/108", true],
    ["10.68.0.0/33", false],
    ["10.68.0/16", false],
    ["10.68.0.0", false],
    ["10.68.0.0/16/1", false],
  ];
  for (const [text, want] of cidrs) it(`isCidr(${text}) is ${want}`, () => assert.equal(isCidr(text), want));
  const weights: Array<[string | undefined, number | null]> = [
    [undefined, 1],
    ["6.0", 6],
    ["0.5", 0.5],
    ["1e1", 10],
    ["six", null],
    ["", null],
    ["-1", null],
  ];
  for (const [text, want] of weights) {
    it(`parseWeight(${JSON.stringify(text)}) is ${want}`, () => assert.equal(parseWeight(text === undefined ? {} : { "cke.cybozu.com/weight": text }), want));
  }
});

describe("CKE's own template export (ckecli sabakan get-template)", () => {
  const exported = readFileSync(new URL("../../fixtures/cke/get-template.yaml", import.meta.url), "utf8");

  it("loads: address and hostname empty on every node, Go's zero values and CKE's default sections passed through", () => {
    const r = parseTemplate(exported);
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
    assert.equal(r.template.nodes.length, 3);
    assert.deepEqual(r.template.nodes[2]?.taints, [{ key: "cke.cybozu.com/role", value: "storage", effect: "NoExecute" }]);
    assert.deepEqual(r.template.control_plane_tolerations, []);
    assert.equal((r.template.extra["options"] as { kubelet: { cri_endpoint: string } }).kubelet.cri_endpoint, "/run/containerd/containerd.sock");
  });

  it("reads sabakan.spare_node_taint_key from the template, as CKE does", () => {
    const r = parseTemplate(exported);
    assert.ok(r.ok);
    assert.equal(templateSpareNodeTaintKey(r.template), "cke.cybozu.com/spare");
  });

  const keys: Array<[string, string, string | null]> = [
    ["absent", "", null],
    ["Go's zero value", 'sabakan:\n  spare_node_taint_key: ""\n', null],
    ["a key", "sabakan:\n  spare_node_taint_key: example.com/spare\n", "example.com/spare"],
    ["an empty section", "sabakan: null\n", null],
  ];
  for (const [name, section, want] of keys) {
    it(`spare_node_taint_key ${name}: ${want ?? "none"}`, () => {
      const r = parseTemplate(doc(CP + W(), `name: cluster\nservice_subnet: 10.68.0.0/16\n${section}`));
      assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
      assert.equal(templateSpareNodeTaintKey(r.template), want);
    });
  }

  const refused: Array<[string, string, RegExp]> = [
    ["a node template with an address", doc(CP + W(undefined, "  address: 10.0.0.1\n")), /nodes\[1\]: must not have an address/],
    ["a hostname that is not a string", doc(CP + W(undefined, "  hostname: [a]\n")), /nodes\[1\]: hostname must be a string/],
    [
      "a spare key that is not a string",
      doc(CP + W(), "name: c\nservice_subnet: 10.68.0.0/16\nsabakan:\n  spare_node_taint_key: 3\n"),
      /spare_node_taint_key: must be a string/,
    ],
    ["a sabakan section that is not a mapping", doc(CP + W(), "name: c\nservice_subnet: 10.68.0.0/16\nsabakan: spare\n"), /^sabakan: must be a mapping/],
  ];
  for (const [name, text, want] of refused) {
    it(`still refuses ${name}`, () => {
      const r = parseTemplate(text);
      assert.ok(!r.ok);
      assert.ok(
        r.errors.some((e) => want.test(e)),
        r.errors.join("; "),
      );
    });
  }

  it("accepts an empty address and a hostname (CKE ignores it) on a node template", () => {
    const r = parseTemplate(doc(CP + W(undefined, '  address: ""\n  hostname: node-a\n')));
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
  });
});
