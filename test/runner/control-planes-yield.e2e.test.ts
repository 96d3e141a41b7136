import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CONTROL_PLANE_LABEL } from "../../src/domain/queue/control-planes.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { graphqlData as gql, serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

interface Entry {
  index: string;
  status: string;
  step: number;
  stepStatus: string;
  waitingFor: { kind: string; message: string; entryIndex: number | null } | null;
  history: Array<{ reason: string }>;
}

const A = "10.0.1.1";
const B = "10.0.1.2";
const quoted = (argv: string[]) => `[${argv.map((a) => JSON.stringify(a)).join(", ")}]`;

/**
 * The one-at-a-time turn never deadlocks, through the real `kintsugi serve` and the test Kubernetes API: control plane A is mid-repair
 * (Ready, its health check failing, watching) when control plane B dies. A gives up the turn, B is repaired first,
 * and A resumes once B is Ready again. Before, A kept the turn and B waited for it: neither ever finished.
 */
describe("control planes yield the turn (the real server process, test Kubernetes API)", () => {
  it("mid-repair A and dead B: B is repaired first, A resumes when B is Ready, and both finish", async () => {
    const dir = tempDir();
    const kube = await startFakeKubeApi();
    const machines = new SimulatedMachines(dir.path);
    // A third control plane, Ready throughout: with one of two not Ready, etcd would have no quorum.
    for (const [name, address] of [
      ["cp1", A],
      ["cp2", B],
      ["cp3", "10.0.1.3"],
    ] as const)
      kube.addNode({ name, internalIP: address, labels: { [CONTROL_PLANE_LABEL]: "" } });
    writeFileSync(
      join(dir.path, "kintsugi.yaml"),
      `listen: "127.0.0.1:0"
database: ./kintsugi.db
runner:
  interval_seconds: 0.1
kubernetes:
  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}
repair:
  max_concurrent_repairs: 1
  repair_procedures:
    - machine_types: [m]
      repair_operations:
        - operation: op
          repair_steps:
            - repair_command: ${quoted(machines.command("noop"))}
              need_drain: true
              watch_seconds: 2
            - repair_command: ${quoted(machines.command("fix"))}
              watch_seconds: 60
          health_check_command: ${quoted(machines.command("health"))}
`,
    );
    let server: ServeProcess | undefined;
    try {
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      const url = await server.url;
      const add = async (address: string) =>
        (
          await gql<{ addRepairEntry: { index: string } }>(
            url,
            `mutation($a: IPAddress!) { addRepairEntry(operation: "op", machineType: "m", address: $a) { index } }`,
            { a: address },
          )
        ).addRepairEntry.index;
      const entry = async (index: string) =>
        (
          await gql<{ repairEntry: Entry }>(
            url,
            `query($i: ID!) { repairEntry(index: $i) { index status step stepStatus waitingFor { kind message entryIndex } history { reason } } }`,
            { i: index },
          )
        ).repairEntry;
      const cordoned = (name: string) => kube.node(name)?.["spec"]?.unschedulable === true;

      const a = await add(A);
      await until(
        "A is drained, cordoned and watching its first step",
        () => entry(a),
        (e) => e.stepStatus === "WATCHING" && e.step === 0 && cordoned("cp1"),
      );

      kube.setNodeCondition("cp2", "Ready", "False");
      const b = await add(B);
      const yielded = await until(
        "A yields to B, naming B's entry",
        () => entry(a),
        (e) => e.waitingFor?.entryIndex === Number(b),
      );
      assert.deepEqual(yielded.waitingFor, { kind: "CONTROL_PLANE", message: "control plane cp2 is not Ready", entryIndex: Number(b) });
      await until(
        "the yielded control plane is uncordoned",
        () => cordoned("cp1"),
        (c) => !c,
      );

      await until(
        "B is repaired: drained, first step run",
        () => entry(b),
        (e) => e.status === "PROCESSING" && e.stepStatus === "WATCHING",
      );
      assert.equal(cordoned("cp1"), false, "only the control plane under repair is cordoned");
      const movedOn = await until(
        "A's watch is still judged while it waits",
        () => entry(a),
        (e) => e.step === 1,
        10_000,
      );
      assert.equal(movedOn.stepStatus, "WAITING", "A's next step waits for the turn");
      assert.equal(machines.runs("fix", A), 0, "A's next step has not run");

      assert.equal(
        (
          await until(
            "B succeeds",
            () => entry(b),
            (e) => e.status === "SUCCEEDED" || e.status === "FAILED",
          )
        ).status,
        "SUCCEEDED",
      );
      assert.equal(machines.runs("fix", A), 0, "A waits while B is not Ready");
      kube.setNodeCondition("cp2", "Ready", "True");
      const done = await until(
        "A resumes and succeeds",
        () => entry(a),
        (e) => e.status === "SUCCEEDED" || e.status === "FAILED",
      );
      assert.equal(done.status, "SUCCEEDED");
      assert.deepEqual(
        [machines.runs("noop", A), machines.runs("fix", A), machines.runs("noop", B), machines.runs("fix", B)],
        [1, 1, 1, 1],
        "each step of each ran once",
      );
      assert.equal(cordoned("cp1") || cordoned("cp2"), false);
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await kube.close();
      dir.remove();
    }
  });
});
