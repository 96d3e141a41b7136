import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/load-config.js";
import { CKE_FIXTURES } from "../support/cke-fixtures.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const FIXTURES = CKE_FIXTURES;
// Just after the fixture's queue was listed: entry 43's drain back-off (until 06:52:20) and entry 41's watch still run.
const NOW = Date.UTC(2026, 7, 21, 6, 50, 0);

/**
 * Taking CKE's queue and constraints over with the CLI (in-process), from ckecli's own output formats
 * (test/fixtures/cke): every entry lands in the state CKE left it, the import is refused while kintsugi's queue runs
 * and leaves out what it imported before, and once the queue runs no step CKE ran is run again.
 */
describe("kintsugi repair-queue import and constraints import: CKE's queue and constraints taken over", () => {
  const dir = tempDir("kintsugi-takeover-");
  const commands = join(dir.path, "commands");
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args], { cwd: FIXTURES });

  before(async () => {
    writeFileSync(commands, "");
    // Every repair command logs its step and machine: a step CKE ran must not appear.
    const step = (n: number) => `{ repair_command: ["sh", "-c", "echo \\"$0 $1\\" >> ${commands}", "step${n}"], watch_seconds: 900 }`;
    const { repair } = parseConfig(
      `repair:
  max_concurrent_repairs: 3
  repair_procedures:
    - machine_types: ["IPMI-2.0"]
      repair_operations:
        - { operation: unreachable, repair_steps: [${step(0)}], health_check_command: ["sh", "-c", "echo false"] }
        - { operation: unhealthy, repair_steps: [${step(0)}, ${step(1)}], health_check_command: ["sh", "-c", "echo false"] }
`,
      "test",
    );
    k = await startTestKintsugi({ repair }, { now: () => NOW, startRunner: true });
  });
  after(async () => {
    await k.dispose();
    dir.remove();
  });

  it("carries CKE's constraints over from ckecli constraints show", async () => {
    const imported = await cli("constraints", "import", "constraints-show.json");
    assert.equal(imported.code, 0, imported.stderr);
    const shown = JSON.parse((await cli("constraints", "show")).stdout) as Record<string, number>;
    assert.deepEqual(shown, { ...shown, ...(JSON.parse(readFileSync(join(FIXTURES, "constraints-show.json"), "utf8")) as Record<string, number>) });
    const bad = join(dir.path, "bad.json");
    writeFileSync(bad, `{"control-plane-count": 5, "maximum-reboots": 2}`);
    const refused = await cli("constraints", "import", bad);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unknown constraint "maximum-reboots"; nothing was set/);
    assert.equal((JSON.parse((await cli("constraints", "show")).stdout) as Record<string, number>)["control-plane-count"], 3);
  });

  it("refuses the queue while kintsugi's runs, then takes every entry in the state CKE left it", async () => {
    const refused = await cli("repair-queue", "import", "repair-queue-list.json");
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /kintsugi's repair queue is enabled: disable it first/);
    assert.equal((await cli("repair-queue", "disable")).code, 0);

    const imported = await cli("repair-queue", "import", "repair-queue-list.json");
    assert.equal(imported.code, 0, imported.stderr);
    const listed = JSON.parse((await cli("repair-queue", "list")).stdout) as Array<Record<string, unknown>>;
    const cke = JSON.parse(readFileSync(join(FIXTURES, "repair-queue-list.json"), "utf8")) as Array<Record<string, unknown>>;
    // As ckecli lists them, with kintsugi's own indexes (and node names as kintsugi finds them: no Kubernetes here).
    assert.deepEqual(
      listed.map(({ index: _index, nodename: _nodename, ...rest }) => rest),
      cke.map(({ index: _index, nodename: _nodename, ...rest }) => rest),
    );

    const again = await cli("repair-queue", "import", "repair-queue-list.json");
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "null\n", "nothing added twice");
    assert.match(again.stderr, /CKE entries imported before, left out: 39, 40, 41, 42, 43/);
  });

  it("once the queue runs, goes on where CKE stopped: only the queued entry runs a command", async () => {
    assert.equal((await cli("repair-queue", "enable")).code, 0);
    const entries = async () => JSON.parse((await cli("repair-queue", "list")).stdout) as Array<{ address: string; status: string; step_status: string }>;
    await until("the queued entry ran its first step", entries, (es) => es.find((e) => e.address === "10.0.1.1")?.step_status === "watching", 60_000);
    assert.deepEqual(readFileSync(commands, "utf8").split("\n").filter(Boolean), ["step0 10.0.1.1"], "no step CKE ran was run again");
    const byAddress = new Map((await entries()).map((e) => [e.address, `${e.status}/${e.step_status}`]));
    assert.equal(byAddress.get("10.0.0.1"), "processing/watching", "CKE's power cycle is watched out, not repeated");
    assert.equal(byAddress.get("10.0.0.2"), "processing/waiting", "its drain back-off (until 06:52:20) still holds");
  });
});
