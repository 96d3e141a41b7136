import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createSocket } from "node:dgram";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// The shipped IPMI commands (deploy/commands/) against Debian's OpenIPMI BMC simulator on loopback.
const COMMANDS = resolve("deploy/commands");
const missing = ["/usr/bin/ipmi_sim", "/usr/bin/ipmitool"].filter((path) => !existsSync(path));
const skip = missing.length > 0 ? `needs ${missing.join(" and ")} (Debian packages openipmi, ipmitool)` : false;

/** A free UDP port on 127.0.0.1 (ephemeral; closed before the simulator binds it). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((done) => socket.bind(0, "127.0.0.1", done));
  const port = socket.address().port;
  await new Promise<void>((done) => socket.close(done));
  return port;
}

function run(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, [], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

test("the IPMI commands power-cycle and check a machine through ipmi_sim", { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "kintsugi-ipmi-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const port = await freeUdpPort();
  await writeFile(join(dir, "lan.conf"), [
    'name "sim"',
    "set_working_mc 0x20",
    "  startlan 1",
    `    addr 127.0.0.1 ${port}`,
    "    priv_limit admin",
    "    allowed_auths_admin none md2 md5 straight",
    "    guid a123456789abcdefa123456789abcdef",
    "  endlan",
    `  chassis_control "${join(dir, "chassis-control")}"`,
    '  user 2 true "admin" "s3cret-pw" admin 10 none md2 md5 straight',
    "",
  ].join("\n"));
  await writeFile(join(dir, "emu"), "mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr\nmc_enable 0x20\n");
  // The simulated machine's chassis: answers power "on" and accepts power changes.
  await writeFile(join(dir, "chassis-control"), "#!/bin/sh\ncase \"$2\" in get) echo power:1 ;; esac\n", { mode: 0o755 });
  await writeFile(join(dir, "user"), "admin");
  await writeFile(join(dir, "password"), "s3cret-pw");
  await writeFile(join(dir, "wrong-password"), "not-it");
  const sim = spawn("/usr/bin/ipmi_sim", ["-c", join(dir, "lan.conf"), "-f", join(dir, "emu"), "-s", join(dir, "state"), "-n"], { stdio: "ignore" });
  t.after(() => { sim.kill(); });
  const env = { KINTSUGI_BMC_ADDRESS: "127.0.0.1", KINTSUGI_IPMI_PORT: String(port), KINTSUGI_IPMI_USER_FILE: join(dir, "user"), KINTSUGI_IPMI_PASSWORD_FILE: join(dir, "password") };
  // The simulator binds asynchronously: wait until it answers (bounded), never a fixed sleep.
  let first = await run(join(COMMANDS, "ipmi-power-cycle"), env);
  for (let i = 0; i < 50 && first.code !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    first = await run(join(COMMANDS, "ipmi-power-cycle"), env);
  }
  const cases = [
    { name: "power cycle with the right credentials", file: "ipmi-power-cycle", env, code: 0, stdout: /Chassis Power Control: Cycle/u },
    { name: "health check with the right credentials", file: "ipmi-is-healthy", env, code: 0, stdout: /^(true|false)\n$/u },
    { name: "power cycle with a wrong password fails", file: "ipmi-power-cycle", env: { ...env, KINTSUGI_IPMI_PASSWORD_FILE: join(dir, "wrong-password") }, code: 1, stdout: /^$/u },
    { name: "health check with a wrong password is unhealthy", file: "ipmi-is-healthy", env: { ...env, KINTSUGI_IPMI_PASSWORD_FILE: join(dir, "wrong-password") }, code: 0, stdout: /^false\n$/u },
    { name: "no BMC address is refused", file: "ipmi-power-cycle", env: { ...env, KINTSUGI_BMC_ADDRESS: "" }, code: 2, stdout: /^$/u },
  ];
  for (const c of cases) {
    const result = await run(join(COMMANDS, c.file), c.env);
    assert.equal(result.code === 0, c.code === 0, `${c.name}: exit ${result.code}, ${result.stderr}`);
    assert.match(result.stdout, c.stdout, c.name);
  }
});
