import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { clusterDocument, clusterYaml } from "../../../src/domain/cluster/cluster-yaml.js";
import type { ClusterNode, GeneratedCluster } from "../../../src/domain/cluster/types.js";

const node = (address: string, over: Partial<ClusterNode> = {}): ClusterNode => ({
  address,
  user: "cybozu",
  control_plane: false,
  labels: {},
  annotations: {},
  taints: [],
  ...over,
});

const cluster = (over: Partial<GeneratedCluster> = {}): GeneratedCluster => ({
  name: "tokyo",
  service_subnet: "10.68.0.0/16",
  control_plane_tolerations: [],
  extra: {},
  nodes: [node("10.0.0.1", { control_plane: true }), node("10.0.1.2")],
  ...over,
});

/** A cluster with every key set: tolerations, extra keys out of alphabetical order, full nodes. */
const FULL = cluster({
  control_plane_tolerations: ["dedicated", "cke.cybozu.com/role"],
  extra: {
    options: { kubelet: { cgroup_driver: "systemd" } },
    dns_service: "kube-system/dns",
    dns_servers: ["10.0.0.53"],
  },
  nodes: [
    node("10.0.0.1", {
      control_plane: true,
      labels: { "z.example/b": "2", "cke.cybozu.com/rack": "0", "a.example/a": "1" },
      annotations: { "cke.cybozu.com/serial": "m000", "a.example/note": "x" },
      taints: [{ key: "cke.cybozu.com/master", effect: "PreferNoSchedule" }],
    }),
    node("10.0.1.2", {
      labels: { "cke.cybozu.com/rack": "1" },
      annotations: { "cke.cybozu.com/serial": "m001" },
      taints: [
        { key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" },
        { key: "dedicated", value: "", effect: "NoSchedule" },
      ],
    }),
  ],
});

const parsed = (c: GeneratedCluster) => parse(clusterYaml(c)) as Record<string, unknown> & { nodes: Array<Record<string, unknown>> };
const nodeAt = (c: GeneratedCluster, i: number) => parsed(c).nodes[i] as Record<string, unknown>;

describe("clusterYaml", () => {
  describe("top-level key order", () => {
    const cases: Array<[string, GeneratedCluster, string[]]> = [
      ["no tolerations, no extra keys", cluster(), ["name", "nodes", "service_subnet"]],
      ["empty tolerations are left out", cluster({ control_plane_tolerations: [], extra: { options: {} } }), ["name", "nodes", "service_subnet", "options"]],
      [
        "tolerations before service_subnet, then the template's extra keys in their order",
        FULL,
        ["name", "nodes", "control_plane_tolerations", "service_subnet", "options", "dns_service", "dns_servers"],
      ],
      [
        "extra keys keep their order, not sorted",
        cluster({ extra: { zeta: 1, alpha: 2, mid: 3 } }),
        ["name", "nodes", "service_subnet", "zeta", "alpha", "mid"],
      ],
    ];
    for (const [name, c, keys] of cases) {
      it(name, () => {
        assert.deepEqual(Object.keys(clusterDocument(c)), keys);
        assert.deepEqual(Object.keys(parsed(c)), keys);
        // The text itself has the top-level keys in this order.
        const topLevel = clusterYaml(c)
          .split("\n")
          .filter((l) => /^[a-z_]+:/.test(l))
          .map((l) => l.slice(0, l.indexOf(":")));
        assert.deepEqual(topLevel, keys);
      });
    }

    it("keeps the tolerations' order", () => {
      assert.deepEqual(parsed(FULL)["control_plane_tolerations"], ["dedicated", "cke.cybozu.com/role"]);
    });
  });

  describe("node keys", () => {
    const cases: Array<[string, ClusterNode, string[]]> = [
      ["empty labels, annotations and taints are left out", node("10.0.0.1"), ["address", "user", "control_plane"]],
      ["labels only", node("10.0.0.1", { labels: { a: "1" } }), ["address", "user", "control_plane", "labels"]],
      ["annotations only", node("10.0.0.1", { annotations: { a: "1" } }), ["address", "user", "control_plane", "annotations"]],
      ["taints only", node("10.0.0.1", { taints: [{ key: "k", effect: "NoSchedule" }] }), ["address", "user", "control_plane", "taints"]],
      [
        "every key, in order address, user, control_plane, labels, annotations, taints",
        node("10.0.0.1", {
          // Deliberately built in another order: the output order must not follow the input's.
          taints: [{ key: "k", effect: "NoSchedule" }],
          annotations: { a: "1" },
          labels: { a: "1" },
          control_plane: true,
        }),
        ["address", "user", "control_plane", "labels", "annotations", "taints"],
      ],
      [
        "a hostname goes right after the address",
        node("10.0.0.1", { hostname: "host-1", labels: { a: "1" } }),
        ["address", "hostname", "user", "control_plane", "labels"],
      ],
      ["an empty hostname is left out", node("10.0.0.1", { hostname: "" }), ["address", "user", "control_plane"]],
    ];
    for (const [name, n, keys] of cases) {
      it(name, () => {
        assert.deepEqual(Object.keys(nodeAt(cluster({ nodes: [n] }), 0)), keys);
      });
    }

    it("keeps control_plane false as an explicit false", () => {
      assert.equal(nodeAt(cluster(), 1)["control_plane"], false);
      assert.equal(nodeAt(cluster(), 0)["control_plane"], true);
    });

    it("keeps the nodes in the cluster's order", () => {
      const c = cluster({ nodes: [node("10.0.9.9"), node("10.0.0.1", { control_plane: true }), node("10.0.5.5")] });
      assert.deepEqual(
        parsed(c).nodes.map((n) => n["address"]),
        ["10.0.9.9", "10.0.0.1", "10.0.5.5"],
      );
    });
  });

  describe("labels and annotations", () => {
    it("sorts label keys", () => {
      assert.deepEqual(Object.keys(nodeAt(FULL, 0)["labels"] as object), ["a.example/a", "cke.cybozu.com/rack", "z.example/b"]);
    });

    it("sorts annotation keys", () => {
      assert.deepEqual(Object.keys(nodeAt(FULL, 0)["annotations"] as object), ["a.example/note", "cke.cybozu.com/serial"]);
    });

    it("keeps the values with their keys", () => {
      assert.deepEqual(nodeAt(FULL, 0)["labels"], { "a.example/a": "1", "cke.cybozu.com/rack": "0", "z.example/b": "2" });
    });

    it("keeps number-like and boolean-like values as strings", () => {
      const c = cluster({ nodes: [node("10.0.0.1", { labels: { weight: "6.0", flag: "true", rack: "0", empty: "" } })] });
      assert.deepEqual(nodeAt(c, 0)["labels"], { empty: "", flag: "true", rack: "0", weight: "6.0" });
    });
  });

  describe("taints", () => {
    const cases: Array<[string, ClusterNode["taints"][number], Record<string, string>, string[]]> = [
      [
        "with a value: key, value, effect",
        { key: "k", value: "v", effect: "NoExecute" },
        { key: "k", value: "v", effect: "NoExecute" },
        ["key", "value", "effect"],
      ],
      ["without a value: value left out", { key: "k", effect: "NoSchedule" }, { key: "k", effect: "NoSchedule" }, ["key", "effect"]],
      ["with an empty value: value left out", { key: "k", value: "", effect: "PreferNoSchedule" }, { key: "k", effect: "PreferNoSchedule" }, ["key", "effect"]],
    ];
    for (const [name, taint, expected, keys] of cases) {
      it(name, () => {
        const t = (nodeAt(cluster({ nodes: [node("10.0.0.1", { taints: [taint] })] }), 0)["taints"] as Array<Record<string, string>>)[0];
        assert.deepEqual(t, expected);
        assert.deepEqual(Object.keys(t ?? {}), keys);
      });
    }

    it("keeps the taints' order", () => {
      const taints = nodeAt(FULL, 1)["taints"] as Array<Record<string, string>>;
      assert.deepEqual(
        taints.map((t) => t["key"]),
        ["cke.cybozu.com/state", "dedicated"],
      );
    });
  });

  describe("round trip and determinism", () => {
    const cases: Array<[string, GeneratedCluster]> = [
      ["minimal", cluster()],
      ["every key", FULL],
      ["no nodes", cluster({ nodes: [] })],
    ];
    for (const [name, c] of cases) {
      it(`parses back to the same document: ${name}`, () => {
        assert.deepEqual(parse(clusterYaml(c)), clusterDocument(c));
      });

      it(`renders the same text for the same input: ${name}`, () => {
        assert.equal(clusterYaml(c), clusterYaml(c));
        assert.equal(clusterYaml(c), clusterYaml(JSON.parse(JSON.stringify(c)) as GeneratedCluster));
      });
    }

    it("renders the same text whatever the order of the label and annotation keys in the input", () => {
      const reordered = cluster({
        ...FULL,
        nodes: FULL.nodes.map((n) => ({
          ...n,
          labels: Object.fromEntries(Object.entries(n.labels).reverse()),
          annotations: Object.fromEntries(Object.entries(n.annotations).reverse()),
        })),
      });
      assert.equal(clusterYaml(reordered), clusterYaml(FULL));
    });

    it("writes shared values in full, without YAML anchors or aliases", () => {
      const shared = { a: 1, b: [1, 2] };
      const c = cluster({ extra: { first: shared, second: shared } });
      const text = clusterYaml(c);
      assert.doesNotMatch(text, /[&*]a\d/);
      assert.deepEqual(parse(text), clusterDocument(c));
    });

    it("does not fold long values", () => {
      const long = "x ".repeat(200).trim();
      const c = cluster({ nodes: [node("10.0.0.1", { annotations: { note: long } })] });
      assert.ok(
        clusterYaml(c)
          .split("\n")
          .some((l) => l.includes(long)),
      );
    });

    it("renders the exact text of a small cluster", () => {
      const c = cluster({
        control_plane_tolerations: ["dedicated"],
        extra: { options: { kubelet: { boot_taints: [] } } },
        nodes: [
          node("10.0.0.1", {
            control_plane: true,
            labels: { "cke.cybozu.com/rack": "0", "cke.cybozu.com/role": "cs" },
            taints: [{ key: "cke.cybozu.com/state", value: "retiring", effect: "NoExecute" }],
          }),
          node("10.0.1.2", { annotations: { "cke.cybozu.com/serial": "m001" } }),
        ],
      });
      assert.equal(
        clusterYaml(c),
        [
          "name: tokyo",
          "nodes:",
          "  - address: 10.0.0.1",
          "    user: cybozu",
          "    control_plane: true",
          "    labels:",
          '      cke.cybozu.com/rack: "0"',
          "      cke.cybozu.com/role: cs",
          "    taints:",
          "      - key: cke.cybozu.com/state",
          "        value: retiring",
          "        effect: NoExecute",
          "  - address: 10.0.1.2",
          "    user: cybozu",
          "    control_plane: false",
          "    annotations:",
          "      cke.cybozu.com/serial: m001",
          "control_plane_tolerations:",
          "  - dedicated",
          "service_subnet: 10.68.0.0/16",
          "options:",
          "  kubelet:",
          "    boot_taints: []",
          "",
        ].join("\n"),
      );
    });
  });
});
