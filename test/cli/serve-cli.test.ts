import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../support/run-cli.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

describe("kintsugi serve and check-config (serve as the real binary, check-config in-process)", () => {
  it("prints help", async () => {
    const res = await runCliInProcess(["--help"]);
    assert.equal(res.code, 0);
    for (const command of ["serve", "check-config", "repair-queue", "auto-repair", "constraints"]) assert.match(res.stdout, new RegExp(command));
  });

  it("serves a config file on an ephemeral port, answers { repairQueueEnabled }, and stops cleanly on SIGTERM", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./state/k.db\n`);
      const server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      try {
        const url = await server.url;
        const res = await fetch(`${url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ repairQueueEnabled }" }),
        });
        assert.deepEqual(await res.json(), { data: { repairQueueEnabled: true } });
        assert.ok(existsSync(join(dir.path, "state", "k.db")), "the database is created relative to the working directory");
      } finally {
        server.child.kill("SIGTERM");
        assert.equal(await server.exited, 0, "stops cleanly on SIGTERM");
      }
    } finally {
      dir.remove();
    }
  });

  // The binary loads its modules with NODE_ENV=production (graphql-js's fast type checks) and must put NODE_ENV back:
  // the commands it runs on machines get the operator's environment, with or without NODE_ENV.
  const nodeEnvCases: Array<[string, string | undefined, string]> = [
    ["unset stays unset", undefined, "unset"],
    ["a given value stays as given", "staging", "staging"],
  ];
  for (const [name, given, want] of nodeEnvCases) {
    it(`gives repair commands the operator's NODE_ENV: ${name}`, async () => {
      const dir = tempDir();
      try {
        const seen = join(dir.path, "node-env");
        // Written aside and moved into place: the test reads the file once it exists, and a redirection creates it empty.
        const check = JSON.stringify(`printf '%s' "\${NODE_ENV-unset}" > ${seen}.tmp && mv ${seen}.tmp ${seen}; echo false`);
        writeFileSync(
          join(dir.path, "kintsugi.yaml"),
          `listen: "127.0.0.1:0"\ndatabase: ./k.db\nrepair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n` +
            `        - operation: unreachable\n          repair_steps: [{ repair_command: ["true"], watch_seconds: 600 }]\n          health_check_command: [sh, -c, ${check}]\n`,
        );
        const env = { ...process.env };
        delete env["NODE_ENV"];
        if (given !== undefined) env["NODE_ENV"] = given;
        const server = serveProcess(["--config", "kintsugi.yaml"], dir.path, env);
        try {
          const url = await server.url;
          assert.equal((await runCliInProcess(["--server", url, "repair-queue", "add", "unreachable", "qemu", "10.0.0.1"])).code, 0);
          await until("the health check command ran", () => existsSync(seen), Boolean, 20_000);
          assert.equal(readFileSync(seen, "utf8"), want);
        } finally {
          server.child.kill("SIGTERM");
          assert.equal(await server.exited, 0);
        }
      } finally {
        dir.remove();
      }
    });
  }

  it("keeps introspection (GraphiQL's schema, the CLI's checks) when the operator's environment says NODE_ENV=production", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n`);
      const server = serveProcess(["--config", "kintsugi.yaml"], dir.path, { ...process.env, NODE_ENV: "production" });
      try {
        const url = await server.url;
        const res = await fetch(`${url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "{ __schema { queryType { name } } }" }),
        });
        assert.deepEqual(await res.json(), { data: { __schema: { queryType: { name: "Query" } } } });
      } finally {
        server.child.kill("SIGTERM");
        assert.equal(await server.exited, 0);
      }
    } finally {
      dir.remove();
    }
  });

  it("refuses to start on an invalid config file, naming the key", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "bad.yaml"), `listen: "127.0.0.1:0"\nrepair:\n  max_concurrent_repairs: 0\n`);
      const res = await runCli(["serve", "--config", "bad.yaml"], { cwd: dir.path });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /kintsugi: bad\.yaml: repair\.max_concurrent_repairs: must be > 0/);
    } finally {
      dir.remove();
    }
  });

  it("refuses to start on a database path that cannot be written, naming it", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "blocker"), "a file where a directory should be");
      writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./blocker/k.db\n`);
      const res = await runCli(["serve", "--config", "k.yaml"], { cwd: dir.path });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /^kintsugi: k\.yaml: database: \.\/blocker\/k\.db: cannot be created: .*\/blocker is not a directory$/m);
    } finally {
      dir.remove();
    }
  });

  it("checks a config file without starting anything", async () => {
    const dir = tempDir();
    try {
      const good = join(dir.path, "good.yaml");
      writeFileSync(
        good,
        `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: [echo, hi] }]\n          health_check_command: [echo, "true"]\n`,
      );
      assert.deepEqual(await runCliInProcess(["check-config", good]), { code: 0, stdout: `${good}: ok\n`, stderr: "" });
      const bad = join(dir.path, "bad.yaml");
      writeFileSync(
        bad,
        `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: [echo], watch_seconds: -1 }]\n          health_check_command: [echo]\n  colour: blue\n  max_concurent_repairs: 2\n`,
      );
      const res = await runCliInProcess(["check-config", bad]);
      assert.equal(res.code, 1);
      // Every problem on its own line, each saying whose it is; a key kintsugi does not know directly under repair is
      // refused (every key of CKE's Repair struct is known), naming the key it is nearest to when one is near.
      assert.deepEqual(res.stderr.trimEnd().split("\n"), [
        `kintsugi: ${bad}: repair.repair_procedures[0].repair_operations[0].repair_steps[0].watch_seconds: must be >= 0`,
        `kintsugi: ${bad}: repair.colour: unknown key`,
        `kintsugi: ${bad}: repair.max_concurent_repairs: unknown key (did you mean max_concurrent_repairs?)`,
      ]);
      // CKE ignores keys it does not know in its repair section; kintsugi loads it as CKE does and says so.
      const cke = join(dir.path, "cke.yaml");
      writeFileSync(
        cke,
        `repair:\n  repair_procedures:\n    - machine_types: [qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: [echo, hi] }]\n          health_check_command: [echo, "true"]\n          success_command_timeout_seconds: 30\n`,
      );
      assert.deepEqual(await runCliInProcess(["check-config", cke]), {
        code: 0,
        stdout: `${cke}: warning: repair.repair_procedures[0].repair_operations[0].success_command_timeout_seconds: unknown key, ignored as CKE ignores it (did you mean success_command_timeout?)\n${cke}: ok\n`,
        stderr: "",
      });
      // sabakan's bmc.type is IPMI-2.0 or iDRAC-9 and the match is exact: a value that differs only by case is named.
      const cased = join(dir.path, "cased.yaml");
      writeFileSync(
        cased,
        `repair:\n  repair_procedures:\n    - machine_types: [ipmi-2.0, iDRAC-9, qemu]\n      repair_operations:\n        - operation: unreachable\n          repair_steps: [{ repair_command: [echo, hi] }]\n          health_check_command: [echo, "true"]\n`,
      );
      assert.deepEqual(await runCliInProcess(["check-config", cased]), {
        code: 0,
        stdout: `${cased}: warning: repair.repair_procedures[0].machine_types[0]: "ipmi-2.0" differs from sabakan's BMC type "IPMI-2.0" only by case; machine types match bmc.type exactly (as in CKE), so it matches no IPMI-2.0 machine\n${cased}: ok\n`,
        stderr: "",
      });
      const malformed = join(dir.path, "malformed.yaml");
      writeFileSync(malformed, "repair: [unclosed\n");
      assert.match((await runCliInProcess(["check-config", malformed])).stderr, /malformed\.yaml: .*line/i);
    } finally {
      dir.remove();
    }
  });
});
