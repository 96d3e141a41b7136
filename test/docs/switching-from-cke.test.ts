import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { REPO, readDoc } from "../support/doc-files.js";
import { CKE_FIXTURES, CKE_MACHINES, ckeFixture } from "../support/cke-fixtures.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { failure, operatorDirectory, runBlock, runnableBlocks } from "../support/runnable-blocks.js";
import { runCli } from "../support/run-cli.js";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";

const PAGE = "docs/switching-from-cke.md";

// The operator's kintsugi: CKE's repair section for the fixtures' queue (commands that touch nothing), all_healthy.
const CONFIG = (sabakanUrl: string) => `listen: "127.0.0.1:0"
database: ./kintsugi.db
auth:
  tokens_file: ./tokens.yaml
sabakan:
  url: ${JSON.stringify(sabakanUrl)}
  schedule: "0 0 1 1 *"
  worker_selection: all_healthy
repair:
  max_concurrent_repairs: 2
  repair_procedures:
    - machine_types: ["IPMI-2.0"]
      repair_operations:
        - operation: unreachable
          repair_steps: [{ repair_command: ["true"], watch_seconds: 900 }]
          health_check_command: ["sh", "-c", "echo false"]
        - operation: unhealthy
          repair_steps: [{ repair_command: ["true"], watch_seconds: 900 }, { repair_command: ["true"], watch_seconds: 900 }]
          health_check_command: ["sh", "-c", "echo false"]
`;

interface State {
  clusterGenerations: Array<{ outcome: string; trigger: string; generation: number }>;
  searchRepairEntries: Array<{ address: string; status: string }>;
  constraints: { controlPlaneCount: number; maximumRepairQueueEntries: number; waitSecondsToRepairRebooting: number };
  repairQueueEnabled: boolean;
  autoRepairEnabled: boolean;
  clusterGenerationEnabled: boolean;
  autoRepairVariables: { text: string | null };
}
const STATE = `{
  clusterGenerations { outcome trigger generation }
  searchRepairEntries { address status }
  constraints { controlPlaneCount maximumRepairQueueEntries waitSecondsToRepairRebooting }
  repairQueueEnabled autoRepairEnabled clusterGenerationEnabled
  autoRepairVariables { text }
}`;

/**
 * docs/switching-from-cke.md's commands, in order, as an operator runs them: the real `kintsugi` (built) against a
 * `kintsugi serve` and a test sabakan holding the machines of CKE's fixtures, and a `ckecli` that prints what ckecli
 * prints (test/support/ckecli-stand-in.sh, test/fixtures/cke/) and records what it was asked.
 */
describe(`${PAGE}: every command runs, next to a stand-in of CKE`, () => {
  const blocks = runnableBlocks(PAGE, readDoc(PAGE));
  const dir = operatorDirectory();
  const calls = join(dir.path, "ckecli-calls");
  let sabakan: FakeSabakan;
  let server: ServeProcess;
  let url = "";
  let token = "";
  const state = async () => {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: STATE }),
    });
    return ((await res.json()) as { data: State }).data;
  };

  before(async () => {
    sabakan = await startFakeSabakan();
    for (const m of CKE_MACHINES) sabakan.addMachine(m);
    writeFileSync(join(dir.path, "kintsugi.yaml"), CONFIG(sabakan.url));
    // The operator's admin token, as access-control.md has it made.
    const created = await runCli(["token", "create", "switch", "--role", "admin"]);
    const [secret, line] = created.stdout.split("\n");
    token = secret as string;
    writeFileSync(join(dir.path, "tokens.yaml"), `${line}\n`);
    writeFileSync(join(dir.path, "bin/ckecli"), `#!/bin/sh\nexec sh '${join(REPO, "test/support/ckecli-stand-in.sh")}' "$@"\n`);
    chmodSync(join(dir.path, "bin/ckecli"), 0o755);
    writeFileSync(calls, "");
    Object.assign(dir.env, { CKECLI_FIXTURES: CKE_FIXTURES, CKECLI_CALLS: calls });
    server = serveProcess(["--config", "kintsugi.yaml"], dir.path, dir.env);
    url = await server.url;
    Object.assign(dir.env, { KINTSUGI_SERVER: url, KINTSUGI_TOKEN: token });
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await sabakan.close();
    dir.remove();
  });

  it("marks its commands runnable next to CKE, and only those", () => {
    assert.ok(blocks.length >= 6, `${blocks.length} blocks`);
    assert.ok(
      blocks.every((b) => b.cke && !b.server),
      "every runnable block of the page is a `cke` one",
    );
  });

  let switched: State | null = null;
  for (const block of blocks) {
    it(`${block.file}:${block.line}`, async () => {
      const result = await runBlock(block.text, dir.path, dir.env);
      assert.equal(result.code, 0, failure(block, result));
      // The state once repairs are handed over, before the page switches back.
      if (/^kintsugi auto-repair enable$/m.test(block.text)) switched = await state();
    });
  }

  it("switched: CKE's cluster adopted and kept, its constraints, variables and queue taken over, everything on", () => {
    assert.ok(switched, "the page enables kintsugi's auto-repair");
    const s = switched as State;
    assert.deepEqual(s.clusterGenerations, [{ outcome: "GENERATED", trigger: "ADOPT", generation: 1 }], "adopted; the first round changed nothing");
    assert.deepEqual(s.constraints, { controlPlaneCount: 3, maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 1800 });
    assert.equal(s.autoRepairVariables.text, ckeFixture("auto-repair-get-variables.json"));
    assert.deepEqual(
      s.searchRepairEntries.map((e) => e.address),
      ["10.0.2.2", "10.0.2.1", "10.0.0.1", "10.0.1.1", "10.0.0.2"],
      "CKE's five entries",
    );
    assert.deepEqual([s.repairQueueEnabled, s.autoRepairEnabled, s.clusterGenerationEnabled], [true, true, true]);
  });

  it("CKE was asked in the page's order: its integration, auto-repair and queue off before kintsugi's went on; back on at the end", () => {
    assert.deepEqual(readFileSync(calls, "utf8").split("\n").filter(Boolean), [
      "constraints show",
      "sabakan get-template",
      "sabakan get-variables",
      "auto-repair get-variables",
      "sabakan disable",
      "cluster get",
      "cluster set cluster.yml",
      "auto-repair disable",
      "repair-queue disable",
      "status",
      "repair-queue list",
      "cluster set cluster.yml",
      "sabakan enable",
      "repair-queue enable",
      "auto-repair enable",
    ]);
    const handedBack = parse(readFileSync(`${calls}.cluster-set.yaml`, "utf8")) as { nodes: Array<{ address: string; control_plane: boolean }> };
    assert.deepEqual(
      handedBack.nodes.filter((n) => n.control_plane).map((n) => n.address),
      ["10.0.0.3", "10.0.1.3", "10.0.2.3"],
      "CKE gets back its own control planes",
    );
  });

  it("switched back: kintsugi acts on nothing", async () => {
    const s = await state();
    assert.deepEqual([s.repairQueueEnabled, s.autoRepairEnabled, s.clusterGenerationEnabled], [false, false, false]);
  });
});
