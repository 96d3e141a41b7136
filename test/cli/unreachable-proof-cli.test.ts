import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";

/** A config whose one operation `reboot` has `steps` (YAML flow items) and `proof` (more keys of the operation). */
function config(head: string, steps: string, proof: string): string {
  return `listen: "127.0.0.1:0"\n${head}repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: reboot\n          repair_steps: [${steps}]\n          health_check_command: [echo, "true"]\n${proof}`;
}

const OP = "repair\\.repair_procedures\\[0\\]\\.repair_operations\\[0\\]";

// Each a proof of repair no entry could ever gather: refused by serve before it opens anything, and by check-config.
const CASES: ReadonlyArray<{ readonly name: string; readonly yaml: string; readonly message: RegExp }> = [
  {
    name: "sabakan_healthy without a sabakan section",
    yaml: config("", "{ repair_command: [echo], watch_seconds: 60 }", "          success_requires: [sabakan_healthy]\n"),
    message: new RegExp(`${OP}\\.success_requires\\[0\\]: operation "reboot": success_requires sabakan_healthy can never hold without a sabakan section`),
  },
  {
    name: "node_ready without a kubernetes section",
    yaml: config(
      'sabakan: { url: "http://127.0.0.1:1" }\n',
      "{ repair_command: [echo], watch_seconds: 60 }",
      "          success_requires: [sabakan_healthy, node_ready]\n",
    ),
    message: new RegExp(`${OP}\\.success_requires\\[1\\]: operation "reboot": success_requires node_ready can never hold without a kubernetes section`),
  },
  {
    name: "boot_id_changed without a kubernetes section",
    yaml: config("", "{ repair_command: [echo], watch_seconds: 60 }", "          success_requires: [boot_id_changed]\n"),
    message: new RegExp(`${OP}\\.success_requires\\[0\\]: operation "reboot": success_requires boot_id_changed can never hold without a kubernetes section`),
  },
];

describe("unreachable proof of repair is refused at load (serve as the real binary, check-config in-process)", () => {
  for (const { name, yaml, message } of CASES) {
    it(`${name}: serve refuses to start and check-config reports the same`, async () => {
      const dir = tempDir();
      try {
        writeFileSync(join(dir.path, "k.yaml"), yaml);
        const served = await runCli(["serve", "--config", "k.yaml"], { cwd: dir.path, timeoutMs: 20_000 });
        assert.equal(served.code, 1, `serve must refuse; stderr: ${served.stderr}`);
        assert.match(served.stderr, new RegExp(`^kintsugi: k\\.yaml: ${message.source}`));
        const checked = await runCliInProcess(["check-config", "k.yaml"], { cwd: dir.path });
        assert.equal(checked.code, 1, `check-config must refuse; stdout: ${checked.stdout}`);
        assert.equal(checked.stderr, served.stderr);
      } finally {
        dir.remove();
      }
    });
  }

  it("the same proof with its sources configured is accepted, its dwell longer than every watch (a running dwell holds the watch open)", async () => {
    const dir = tempDir();
    try {
      writeFileSync(
        join(dir.path, "k.yaml"),
        config(
          'sabakan: { url: "http://127.0.0.1:1" }\nkubernetes: {}\n',
          "{ repair_command: [echo], watch_seconds: 60 }, { repair_command: [echo], watch_seconds: 120 }",
          "          success_requires: [sabakan_healthy, node_ready, boot_id_changed]\n          success_dwell_seconds: 600\n",
        ),
      );
      // `kubernetes: {}` means the Pod's credentials: checked as where it runs, in a Pod.
      const inPod = { ...process.env, KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
      assert.deepEqual(await runCliInProcess(["check-config", "k.yaml"], { cwd: dir.path, env: inPod }), { code: 0, stdout: "k.yaml: ok\n", stderr: "" });
    } finally {
      dir.remove();
    }
  });
});
