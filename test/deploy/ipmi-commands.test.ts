import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ipmiSimSkip, startIpmiSim } from "../support/ipmi-sim.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// The shipped IPMI commands (deploy/commands/) against Debian's OpenIPMI BMC simulator on loopback.
const COMMANDS = resolve("deploy/commands");

function run(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, [], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

test("the IPMI commands power-cycle and check a machine through ipmi_sim", { skip: ipmiSimSkip() }, async (t) => {
  const dir = tempDir("kintsugi-ipmi-");
  t.after(() => dir.remove());
  const sim = await startIpmiSim(dir.path, 1);
  t.after(() => sim.stop());
  await writeFile(join(dir.path, "wrong-password"), "not-it");
  const env = { KINTSUGI_BMC_ADDRESS: "127.0.0.1", ...sim.commandEnv };
  const cases = [
    { name: "power check of a machine that is on", file: "ipmi-power-is-on", env, code: 0, stdout: /^true\n$/u },
    { name: "the same through its former name", file: "ipmi-is-healthy", env, code: 0, stdout: /^true\n$/u },
    {
      name: "power check with a wrong password is false",
      file: "ipmi-power-is-on",
      env: { ...env, KINTSUGI_IPMI_PASSWORD_FILE: join(dir.path, "wrong-password") },
      code: 0,
      stdout: /^false\n$/u,
    },
    {
      name: "power cycle with a wrong password fails",
      file: "ipmi-power-cycle",
      env: { ...env, KINTSUGI_IPMI_PASSWORD_FILE: join(dir.path, "wrong-password") },
      code: 1,
      stdout: /^$/u,
    },
    { name: "no BMC address is refused", file: "ipmi-power-cycle", env: { ...env, KINTSUGI_BMC_ADDRESS: "" }, code: 2, stdout: /^$/u },
    { name: "power cycle with the right credentials", file: "ipmi-power-cycle", env, code: 0, stdout: /Chassis Power Control: Cycle/u },
  ];
  for (const c of cases) {
    const result = await run(join(COMMANDS, c.file), c.env);
    assert.equal(result.code === 0, c.code === 0, `${c.name}: exit ${result.code}, ${result.stderr}`);
    assert.match(result.stdout, c.stdout, c.name);
  }
  const sets = () => sim.chassisCalls().filter((call) => call.startsWith("set "));
  await until("the simulator powers the machine on again", sets, (s) => s.length >= 2);
  assert.deepEqual(sets(), ["set power 0", "set power 1"], "only the right credentials changed the power, off then on");
  const off = await (async () => {
    await writeFile(join(dir.path, "power"), "0\n");
    return Promise.all(["ipmi-power-is-on", "ipmi-is-healthy"].map((file) => run(join(COMMANDS, file), env)));
  })();
  assert.deepEqual(
    off.map((r) => r.stdout),
    ["false\n", "false\n"],
    "power check of a machine that is off, by both names",
  );
});
