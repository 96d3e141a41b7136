import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { runCli } from "../support/run-cli.js";
import { graphqlData as gql, serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const TEMPLATE = `name: prod
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
  control_plane: false
service_subnet: 10.68.0.0/16
`;

interface Node {
  address: string;
  controlPlane: boolean;
  labels: Array<{ name: string; value: string }>;
  taints: Array<{ key: string; value: string | null; effect: string }>;
}
interface Generation {
  outcome: string;
  policy: string;
  generation: number;
  cluster: { policy: string; nodes: Node[] } | null;
}
const RECORDS = `{ clusterGenerations(last: 3) { outcome policy generation cluster { policy nodes { address controlPlane labels { name value } taints { key value effect } } } } }`;
const label = (n: Node, name: string) => n.labels.find((l) => l.name === name)?.value;

/**
 * One generation with each `sabakan.worker_selection` through the real `kintsugi serve`, the CLI and the test
 * sabakan, with the default constraints (1 control plane, minimum-workers 1). Five healthy machines give 1 control
 * plane and 1 worker under weighted, 1 and 4 under all_healthy, as CKE v1.32.2 and later; a worker that becomes
 * UNREACHABLE is tainted under all_healthy only; every record names its policy.
 */
describe("worker selection policies end to end (the real server process, CLI, test sabakan)", () => {
  const cases = [
    { policy: "weighted", config: "", workers: 1, unreachableTaint: false, retireYear: undefined, failureDomain: "rack1" },
    { policy: "all_healthy", config: "  worker_selection: all_healthy\n", workers: 4, unreachableTaint: true, retireYear: "2031", failureDomain: undefined },
  ];
  for (const c of cases) {
    it(`${c.policy}: 5 healthy machines give 1 control plane and ${c.workers} worker(s)`, async () => {
      const dir = tempDir();
      const sabakan = await startFakeSabakan();
      for (let i = 1; i <= 5; i++) sabakan.addMachine({ serial: `m${i}`, rack: 1, ipv4: [`10.1.0.${i}`], retireDate: Date.UTC(2031, 5, 1) });
      writeFileSync(
        join(dir.path, "kintsugi.yaml"),
        `listen: "127.0.0.1:0"\ndatabase: ./kintsugi.db\nauth: { anonymous: admin }\nsabakan:\n  url: ${JSON.stringify(sabakan.url)}\n  schedule: "0 0 1 1 *"\n${c.config}`,
      );
      writeFileSync(join(dir.path, "cluster.yml"), TEMPLATE);
      const server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      try {
        const url = await server.url;
        assert.deepEqual(await runCli(["--server", url, "sabakan", "set-template", join(dir.path, "cluster.yml")]), { code: 0, stdout: "", stderr: "" });
        const records = async () => (await gql<{ clusterGenerations: Generation[] }>(url, RECORDS)).clusterGenerations;
        const [first] = await until("the template's round records generation 1", records, (r) => r.length > 0);
        assert.deepEqual([first?.outcome, first?.policy, first?.cluster?.policy], ["GENERATED", c.policy.toUpperCase(), c.policy.toUpperCase()]);
        const nodes = first?.cluster?.nodes ?? [];
        assert.equal(nodes.filter((n) => n.controlPlane).length, 1);
        assert.equal(nodes.filter((n) => !n.controlPlane).length, c.workers);
        assert.equal(label(nodes[0] as Node, "cke.cybozu.com/retire-year"), c.retireYear);
        assert.equal(label(nodes[0] as Node, "failure-domain.beta.kubernetes.io/zone"), c.failureDomain);

        const worker = nodes.find((n) => !n.controlPlane) as Node;
        sabakan.setState(`m${worker.address.split(".")[3]}`, "UNREACHABLE");
        const run = await runCli(["--server", url, "cluster", "generate"]);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual([JSON.parse(run.stdout).outcome, JSON.parse(run.stdout).record?.policy], ["GENERATED", c.policy.toUpperCase()]);
        const after = await records();
        const latest = after.at(-1);
        const node = (latest?.cluster ?? first?.cluster)?.nodes.find((n) => n.address === worker.address);
        assert.equal(latest?.policy, c.policy.toUpperCase());
        assert.equal(node?.controlPlane, false, "an unreachable worker stays a worker");
        const tainted = node?.taints.some((t) => t.key === "cke.cybozu.com/state" && t.value === "unreachable" && t.effect === "NoSchedule") ?? false;
        assert.equal(tainted, c.unreachableTaint);
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
        await sabakan.close();
        dir.remove();
      }
    });
  }
});
