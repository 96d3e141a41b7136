import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { findProgram } from "../support/find-program.js";
import { startRedfishBmc, type RedfishBmc } from "../support/redfish-bmc.js";
import { tempDir } from "../support/temp-dir.js";

// The shipped Redfish commands (deploy/commands/) against the test Redfish BMC over https on loopback.
const COMMANDS = resolve("deploy/commands");

function run(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, ["10.0.0.1"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

test("the Redfish commands check and power-cycle a system over https", { skip: findProgram("curl") === null ? "needs curl" : false }, async (t) => {
  const dir = tempDir("kintsugi-redfish-");
  t.after(() => dir.remove());
  const bmc = await startRedfishBmc(dir.path);
  t.after(() => bmc.close());
  const wrong = join(dir.path, "wrong-credentials");
  writeFileSync(wrong, 'user = "root:not-it"\n');
  const env = { KINTSUGI_BMC_ADDRESS: "127.0.0.1", ...bmc.commandEnv };
  const cases: Array<{
    name: string;
    file: string;
    state?: Pick<RedfishBmc, "powerState" | "health">;
    env: Record<string, string>;
    code: number;
    stdout: RegExp;
    stderr?: RegExp;
  }> = [
    { name: "on and OK is healthy", file: "redfish-power-on-health-ok", state: { powerState: "On", health: "OK" }, env, code: 0, stdout: /^true\n$/u },
    { name: "the same through its former name", file: "redfish-is-healthy", state: { powerState: "On", health: "OK" }, env, code: 0, stdout: /^true\n$/u },
    {
      name: "on, Critical, with healthy summaries is not",
      file: "redfish-power-on-health-ok",
      state: { powerState: "On", health: "Critical" },
      env,
      code: 0,
      stdout: /^false\n$/u,
    },
    { name: "off and OK is not", file: "redfish-power-on-health-ok", state: { powerState: "Off", health: "OK" }, env, code: 0, stdout: /^false\n$/u },
    {
      name: "wrong credentials are unhealthy",
      file: "redfish-power-on-health-ok",
      state: { powerState: "On", health: "OK" },
      env: { ...env, KINTSUGI_REDFISH_CREDENTIALS_FILE: wrong },
      code: 0,
      stdout: /^false\n$/u,
    },
    {
      name: "a certificate not signed by the given CA is unhealthy",
      file: "redfish-power-on-health-ok",
      env: { ...env, KINTSUGI_REDFISH_CACERT: "/etc/ssl/certs/ca-certificates.crt" },
      code: 0,
      stdout: /^false\n$/u,
    },
    {
      name: "no BMC address is refused",
      file: "redfish-power-on-health-ok",
      env: { ...env, KINTSUGI_BMC_ADDRESS: "" },
      code: 2,
      stdout: /^$/u,
      stderr: /KINTSUGI_BMC_ADDRESS is not set/u,
    },
    {
      name: "a power cycle with wrong credentials fails",
      file: "redfish-power-cycle",
      env: { ...env, KINTSUGI_REDFISH_CREDENTIALS_FILE: wrong },
      code: 22,
      stdout: /^$/u,
    },
    { name: "a power cycle", file: "redfish-power-cycle", env, code: 0, stdout: /^$/u },
  ];
  for (const c of cases) {
    if (c.state) Object.assign(bmc, c.state);
    const result = await run(join(COMMANDS, c.file), c.env);
    assert.equal(result.code, c.code, `${c.name}: exit ${result.code}, ${result.stderr}`);
    assert.match(result.stdout, c.stdout, c.name);
    if (c.stderr) assert.match(result.stderr, c.stderr, c.name);
  }
  assert.deepEqual(bmc.resets, ["PowerCycle"], "only the right credentials reset the system");
});
