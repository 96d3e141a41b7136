import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { CKE_CLUSTER, CKE_MACHINES, CKE_TEMPLATE } from "../support/cke-fixtures.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { runCli } from "../support/run-cli.js";
import { serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

interface ClusterFile {
  nodes: Array<{ address: string; control_plane: boolean; taints?: Array<{ key: string; value?: string }> }>;
}

/**
 * `kintsugi cluster adopt` through the real binary and the real `kintsugi serve`, with CKE's own output (the fixtures
 * of test/fixtures/cke: ckecli sabakan get-template, ckecli cluster get) and a test sabakan holding the machines they
 * were made from. CKE's control planes (serials 1003, 1006, 1009, not the lowest) stay; the RETIRING worker stays,
 * tainted, and once RETIRED leaves only as CKE's decreaseWorker lets it (sabakan/generator.go: past 300 s, and only
 * while the workers left are at least minimum-workers-rate percent of the machines).
 */
describe("kintsugi cluster adopt: the cluster CKE runs, updated as CKE would", () => {
  it("keeps CKE's control planes; a retiring worker leaves only as CKE would; a file of other machines is refused", async () => {
    const dir = tempDir("kintsugi-adopt-");
    const sabakan = await startFakeSabakan();
    for (const m of CKE_MACHINES) sabakan.addMachine({ ...m, bmcType: "IPMI-2.0" });
    writeFileSync(join(dir.path, "template.yaml"), CKE_TEMPLATE);
    writeFileSync(join(dir.path, "cluster.yaml"), CKE_CLUSTER);
    writeFileSync(join(dir.path, "other.yaml"), CKE_CLUSTER.replaceAll("10.0.1.1", "10.0.9.9"));
    writeFileSync(join(dir.path, "variables.json"), `{"notHaving": {"roles": ["boot"]}}\n`);
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"\ndatabase: ./kintsugi.db\nauth: { anonymous: admin }\nsabakan:\n  url: ${JSON.stringify(sabakan.url)}\n  schedule: "0 0 1 1 *"\n  worker_selection: all_healthy\n`,
    );
    const server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
    try {
      const url = await server.url;
      const cli = async (...args: string[]) => {
        const r = await runCliInProcess(["--server", url, ...args], { cwd: dir.path });
        assert.equal(r.code, 0, `kintsugi ${args.join(" ")}: ${r.stderr}`);
        return r.stdout;
      };
      const clusterNow = async () => parse(await cli("cluster", "get")) as ClusterFile;
      const history = async () => JSON.parse(await cli("cluster", "history", "--last", "1")) as Array<{ outcome: string; changes: string[] }>;

      // The order of docs/switching-from-cke.md: no round until the cluster in force is CKE's.
      await cli("sabakan", "disable");
      await cli("constraints", "set", "control-plane-count", "3");
      await cli("sabakan", "set-template", "template.yaml");

      const refused = await runCli(["--server", url, "cluster", "adopt", "other.yaml"], { cwd: dir.path });
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /1 of 10 nodes are not machines sabakan lists with the cluster variables \(10\.0\.9\.9\): the file does not match sabakan's machines/,
      );

      const adopted = await runCli(["--server", url, "cluster", "adopt", "cluster.yaml"], { cwd: dir.path });
      assert.equal(adopted.code, 0, adopted.stderr);
      const answer = JSON.parse(adopted.stdout) as { generation: number; suggestedWorkerSelection: string; suggestion: string };
      assert.equal(answer.generation, 1);
      assert.equal(answer.suggestedWorkerSelection, "ALL_HEALTHY");
      assert.match(answer.suggestion, /^worker_selection: all_healthy reproduces this cluster: the next round changes nothing; the config has it$/);

      await cli("sabakan", "enable");
      assert.equal((JSON.parse(await cli("cluster", "generate")) as { outcome: string }).outcome, "UNCHANGED");
      const controlPlanes = (await clusterNow()).nodes.filter((n) => n.control_plane).map((n) => n.address);
      assert.deepEqual(controlPlanes, ["10.0.0.3", "10.0.1.3", "10.0.2.3"], "CKE's control planes, not the lowest serials");

      // Listing RETIRED machines (the default leaves them out, and a machine left out is removed at once).
      await cli("sabakan", "set-variables", "variables.json");
      sabakan.setState("1005", "RETIRED", Date.now() - 600_000);
      await cli("cluster", "generate");
      const retired = (await clusterNow()).nodes.find((n) => n.address === "10.0.1.2");
      const lastRound = (await history())[0];
      // Failed once under heavy load (no taint, cause not found): the message keeps what the round saw and did.
      assert.deepEqual(
        retired?.taints,
        [{ key: "cke.cybozu.com/state", value: "retired", effect: "NoExecute" }],
        `kept, tainted retired; the node: ${JSON.stringify(retired ?? null)}; the last round: ${JSON.stringify(lastRound ?? null)}`,
      );
      assert.deepEqual(lastRound?.changes, ["taint node 10.0.1.2 with cke.cybozu.com/state=retired:NoExecute: machine is RETIRED"]);

      // 6 workers of 10 machines would be left: 60 %, below the default 80 %; allowed at 60 %.
      await cli("constraints", "set", "minimum-workers-rate", "60");
      await cli("cluster", "generate");
      const nodes = (await clusterNow()).nodes.map((n) => n.address);
      assert.ok(!nodes.includes("10.0.1.2"), "the retired worker left");
      assert.equal(nodes.length, 9);
      assert.match(
        (await history())[0]?.changes[0] ?? "",
        /^remove retired worker 10\.0\.1\.2 \(serial 1005\): RETIRED for [\d.]+ s \(> 300 s\); 6 workers of 10 machines/,
      );
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      await sabakan.close();
      dir.remove();
    }
  });
});
