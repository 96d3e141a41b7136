import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { serveProcess, type ServeProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";

// CKE's own mtest/cke-cluster.yml writes success_command_timeout_seconds (CKE's key is success_command_timeout) and
// CKE ignores it: kintsugi serves with that repair section and says in its log which key it ignored.
describe("kintsugi serve with CKE's repair section (the real binary)", () => {
  it("starts, and logs a warning naming the key CKE ignores", async () => {
    const dir = tempDir();
    let server: ServeProcess | undefined;
    try {
      writeFileSync(
        join(dir.path, "kintsugi.yaml"),
        `listen: "127.0.0.1:0"\ndatabase: ./k.db\nrepair:\n  repair_procedures:\n  - machine_types: ["type1"]\n    repair_operations:\n    - operation: "op1"\n      repair_steps:\n      - repair_command: ["sh", "-c", "true", "repair"]\n        need_drain: true\n        watch_seconds: 30\n      success_command_timeout_seconds: 30\n      health_check_command: ["sh", "-c", "echo true", "health_check"]\n`,
      );
      server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      const url = await server.url;
      assert.equal((await fetch(`${url}/health`)).status, 200);
      const warnings = server.logRecords().filter((r) => r.level === 40 && r.msg.startsWith("config: "));
      assert.deepEqual(
        warnings.map((r) => r.msg),
        [
          "config: repair.repair_procedures[0].repair_operations[0].success_command_timeout_seconds: unknown key, ignored as CKE ignores it (did you mean success_command_timeout?)",
        ],
      );
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0);
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      dir.remove();
    }
  });
});
