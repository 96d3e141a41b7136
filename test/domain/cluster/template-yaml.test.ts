import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { templateYaml } from "../../../src/domain/cluster/cluster-yaml.js";
import { parseTemplate } from "../../../src/domain/cluster/template.js";

const parsed = (text: string) => {
  const result = parseTemplate(text);
  if (!result.ok) throw new Error(result.errors.join("; "));
  return result.template;
};

const NODES = "nodes:\n- user: cybozu\n  control_plane: true\n- user: cybozu\n";

// ckecli's get-template (pkg/ckecli/cmd/sabakan_get_template.go) marshals the parsed template with sigs.k8s.io/yaml:
// JSON, then Go's yaml.v2, which sorts map keys, writes sequences unindented under their key, and quotes a string
// YAML 1.1 would read as a bool, number or null.
describe("templateYaml: the parsed template as ckecli's get-template prints it", () => {
  const cases: Array<{ name: string; text: string; want: string }> = [
    {
      name: "comments and layout gone, keys sorted, a node's defaults written",
      text: `# production\nservice_subnet: 10.68.0.0/16   # services\nname: prod\n${NODES}`,
      want: "name: prod\nnodes:\n- control_plane: true\n  user: cybozu\n- control_plane: false\n  user: cybozu\nservice_subnet: 10.68.0.0/16\n",
    },
    {
      name: "labels, annotations and taints sorted and quoted as yaml.v2 quotes them",
      text: `name: prod\nservice_subnet: 10.68.0.0/16\nnodes:\n- user: cybozu\n  control_plane: true\n- user: cybozu\n  labels: {zone: "on", cke.cybozu.com/role: ss, "cke.cybozu.com/weight": "2"}\n  annotations: {note: "1.5"}\n  taints: [{key: k, value: "null", effect: NoSchedule}]\n`,
      want: 'name: prod\nnodes:\n- control_plane: true\n  user: cybozu\n- annotations:\n    note: "1.5"\n  control_plane: false\n  labels:\n    cke.cybozu.com/role: ss\n    cke.cybozu.com/weight: "2"\n    zone: "on"\n  taints:\n  - effect: NoSchedule\n    key: k\n    value: "null"\n  user: cybozu\nservice_subnet: 10.68.0.0/16\n',
    },
    {
      name: "the template's other keys, sorted among the known ones and inside",
      text: `options:\n  kubelet:\n    extra_args: ["--v=2"]\n    cgroup_driver: systemd\ndns_service: kube-system/dns\ncontrol_plane_tolerations: [a, b]\nname: prod\nservice_subnet: 10.68.0.0/16\n${NODES}`,
      want: "control_plane_tolerations:\n- a\n- b\ndns_service: kube-system/dns\nname: prod\nnodes:\n- control_plane: true\n  user: cybozu\n- control_plane: false\n  user: cybozu\noptions:\n  kubelet:\n    cgroup_driver: systemd\n    extra_args:\n    - --v=2\nservice_subnet: 10.68.0.0/16\n",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const yaml = templateYaml(parsed(c.text));
      assert.equal(yaml, c.want);
      assert.deepEqual(parsed(yaml), parsed(c.text), "a template again, the same one");
    });
  }
});
