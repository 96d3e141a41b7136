import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { findProgram } from "../support/find-program.js";
import { tempDir } from "../support/temp-dir.js";

const run = promisify(execFile);
const UNIT = fileURLToPath(new URL("../../deploy/systemd/kintsugi.service", import.meta.url));
const SYSUSERS = fileURLToPath(new URL("../../deploy/systemd/kintsugi-sysusers.conf", import.meta.url));
const EXEC_START = "ExecStart=/usr/local/bin/kintsugi ";
const analyze = findProgram("systemd-analyze");
const sysusers = findProgram("systemd-sysusers");

/** The unit's `Key=value` settings of one section, in order (a key may repeat). */
function settings(text: string, section: string): Array<[string, string]> {
  const body = text.split(/^\[/m).find((part) => part.startsWith(`${section}]`)) ?? "";
  return body
    .split("\n")
    .slice(1)
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]);
}

describe("the systemd unit deploy/systemd/kintsugi.service", () => {
  const text = readFileSync(UNIT, "utf8");

  it("systemd-analyze verify accepts it, without a single warning", { skip: analyze === null && "no systemd-analyze on PATH" }, async () => {
    // verify insists that ExecStart's program exists and is executable; it is installed only on a boot server, so
    // a stand-in takes its path. Nothing else of the unit changes.
    const dir = tempDir("kintsugi-unit-");
    try {
      assert.ok(text.includes(`\n${EXEC_START}`), `the unit starts ${EXEC_START}…`);
      const program = join(dir.path, "bin", "kintsugi");
      mkdirSync(join(dir.path, "bin"));
      writeFileSync(program, "#!/bin/sh\n");
      chmodSync(program, 0o755);
      const unit = join(dir.path, "kintsugi.service");
      writeFileSync(unit, text.replace(EXEC_START, `ExecStart=${program} `));
      const { stdout, stderr } = await run(analyze!, ["verify", unit], { timeout: 60_000 });
      // verify exits 0 even for an unknown key or a bad value: it only warns, so any output is a failure.
      assert.equal(`${stdout}${stderr}`, "");
    } finally {
      dir.remove();
    }
  });

  const service = settings(text, "Service");
  const value = (key: string) => service.filter(([k]) => k === key).map(([, v]) => v);
  const required: Array<[string, string, string]> = [
    ["a dedicated user", "User", "kintsugi"],
    ["its state directory, /var/lib/kintsugi", "StateDirectory", "kintsugi"],
    ["its configuration directory, /etc/kintsugi", "ConfigurationDirectory", "kintsugi"],
    ["the config the example is installed as", "ExecStart", "/usr/local/bin/kintsugi serve --config /etc/kintsugi/kintsugi.yaml"],
    ["restarts after a failure", "Restart", "on-failure"],
    ["SIGTERM to kintsugi alone, which stops its repair commands itself", "KillMode", "mixed"],
    ["no privilege gained, not even by a setuid program", "NoNewPrivileges", "yes"],
    ["no capability at all", "CapabilityBoundingSet", ""],
    ["a read-only system", "ProtectSystem", "strict"],
    ["no home directories", "ProtectHome", "yes"],
    ["a private /tmp", "PrivateTmp", "yes"],
    ["no devices", "PrivateDevices", "yes"],
    ["kernel tunables read-only", "ProtectKernelTunables", "yes"],
    ["no kernel modules", "ProtectKernelModules", "yes"],
    ["no kernel log", "ProtectKernelLogs", "yes"],
    ["IP and local sockets only", "RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"],
    ["the system calls of a service", "SystemCallFilter", "@system-service"],
  ];
  for (const [what, key, expected] of required) {
    it(`${what}: ${key}=${expected}`, () => assert.deepEqual(value(key), [expected]));
  }

  it("gives a stop time longer than kintsugi's own shutdown (requests up to 30 s, commands 2 s)", () => {
    const [timeout] = value("TimeoutStopSec");
    assert.match(timeout ?? "", /^\d+s$/);
    assert.ok(Number.parseInt(timeout!, 10) >= 45, `TimeoutStopSec=${timeout}`);
  });

  it("systemd-sysusers makes the user it runs as, at home in its state directory", { skip: sysusers === null && "no systemd-sysusers on PATH" }, async () => {
    const root = tempDir("kintsugi-sysusers-");
    try {
      mkdirSync(join(root.path, "etc"));
      await run(sysusers!, [`--root=${root.path}`, SYSUSERS], { timeout: 60_000 });
      const passwd = readFileSync(join(root.path, "etc", "passwd"), "utf8");
      assert.match(passwd, /^kintsugi:x:\d+:\d+:[^:]*:\/var\/lib\/kintsugi:\/usr\/sbin\/nologin$/m);
      assert.match(readFileSync(join(root.path, "etc", "group"), "utf8"), /^kintsugi:x:\d+:$/m);
    } finally {
      root.remove();
    }
  });
});
