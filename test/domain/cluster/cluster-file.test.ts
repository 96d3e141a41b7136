import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseClusterFile } from "../../../src/domain/cluster/cluster-file.js";
import { clusterYaml } from "../../../src/domain/cluster/cluster-yaml.js";
import { CKE_CLUSTER } from "../../support/cke-fixtures.js";

const node = (address: string, extra = "") => `- address: ${address}\n  user: cybozu\n${extra}`;
const doc = (nodes: string, head = "name: c\nservice_subnet: 10.68.0.0/16\n") => `${head}nodes:\n${nodes}`;

describe("parseClusterFile", () => {
  it("reads ckecli cluster get's output: every node, Go's zero values, CKE's default sections kept", () => {
    const r = parseClusterFile(CKE_CLUSTER);
    assert.ok(r.ok, r.ok ? "" : r.errors.join("; "));
    assert.equal(r.cluster.nodes.length, 10);
    assert.deepEqual(
      r.cluster.nodes.filter((n) => n.control_plane).map((n) => n.address),
      ["10.0.0.3", "10.0.1.3", "10.0.2.3"],
    );
    const retiring = r.cluster.nodes.find((n) => n.address === "10.0.1.2");
    assert.deepEqual(retiring?.taints, [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }]);
    assert.equal(retiring?.hostname, undefined, 'hostname "" is none');
    assert.deepEqual(r.cluster.extra["sabakan"], { spare_node_taint_key: "cke.cybozu.com/spare" });
  });

  it("reads back what kintsugi cluster get prints", () => {
    const first = parseClusterFile(CKE_CLUSTER);
    assert.ok(first.ok);
    const again = parseClusterFile(clusterYaml(first.cluster));
    assert.ok(again.ok, again.ok ? "" : again.errors.join("; "));
    assert.deepEqual(again.cluster, first.cluster);
  });

  const refused: Array<[string, string, RegExp]> = [
    ["text that is not YAML", "nodes: [", /neither YAML nor JSON/],
    ["a list", "- a\n", /must be a mapping/],
    ["no name", doc(node("10.0.0.1"), "service_subnet: 10.68.0.0/16\n"), /^name: must be a non-empty string$/],
    ["a service_subnet that is no CIDR", doc(node("10.0.0.1"), "name: c\nservice_subnet: ten\n"), /^service_subnet: must be a CIDR/],
    ["no nodes", "name: c\nservice_subnet: 10.68.0.0/16\nnodes: []\n", /^nodes: must be a non-empty list/],
    ["a node without an address", doc(node('""')), /^nodes\[0\]: address must be an IP address, got ""$/],
    ["a node whose address is a name", doc(node("node-1")), /^nodes\[0\]: address must be an IP address, got "node-1"$/],
    ["two nodes at one address", doc(node("10.0.0.1") + node("10.0.0.1")), /^nodes\[1\]: duplicate node address 10.0.0.1$/],
    ["a node without a user", doc("- address: 10.0.0.1\n"), /^nodes\[0\] \(10.0.0.1\): user must be a non-empty string$/],
    ["an unknown node key", doc(node("10.0.0.1", "  role: cs\n")), /^nodes\[0\] \(10.0.0.1\): unknown key "role"$/],
    ["a label that is not a string", doc(node("10.0.0.1", "  labels:\n    rack: 3\n")), /labels: rack must be a string, got 3$/],
    ["a taint without an effect", doc(node("10.0.0.1", "  taints:\n  - key: k\n")), /taints\[0\]: effect must be one of/],
  ];
  for (const [name, text, want] of refused) {
    it(`refuses ${name}`, () => {
      const r = parseClusterFile(text);
      assert.ok(!r.ok);
      assert.ok(
        r.errors.some((e) => want.test(e)),
        r.errors.join("\n"),
      );
    });
  }

  it("lists at most 20 errors and counts the rest", () => {
    const r = parseClusterFile(doc(Array.from({ length: 30 }, (_, i) => node(`node-${i}`)).join("")));
    assert.ok(!r.ok);
    assert.equal(r.errors.length, 21);
    assert.equal(r.errors.at(-1), "and 10 more");
  });
});
