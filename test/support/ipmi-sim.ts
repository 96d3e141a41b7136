import { execFile, spawn, spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "./until.js";

// Debian's OpenIPMI BMC simulator (package openipmi) serving one BMC over IPMI LAN on loopback, and ipmitool to talk
// to it. The simulated chassis is a shell script ipmi_sim calls as `chassis-control get power` and
// `chassis-control set power 0|1`: it keeps the power in a file and logs every call, so a test reads what a power
// cycle did (ipmi_sim turns the power off, then on again about a second later).

export const IPMI_SIM = "/usr/bin/ipmi_sim";
export const IPMITOOL = "/usr/bin/ipmitool";

/** Why a test of ipmi_sim cannot run here (one line), or false when it can. */
export function ipmiSimSkip(): string | false {
  const missing = [IPMI_SIM, IPMITOOL].filter((path) => !existsSync(path));
  if (missing.length > 0) return `needs ${missing.join(" and ")} (Debian packages openipmi, ipmitool)`;
  // Installed but unable to start (a missing library, a foreign architecture): say so rather than fail.
  for (const [program, args] of [
    [IPMI_SIM, ["--version"]],
    [IPMITOOL, ["-V"]],
  ] as const) {
    const probe = spawnSync(program, args, { timeout: 5_000, stdio: "ignore" });
    // ipmi_sim --version exits 1 (no default config file) after printing its version; 126/127 is the loader's refusal.
    if (probe.error || probe.signal || probe.status === 126 || probe.status === 127)
      return `${program} cannot run here (${probe.error?.message ?? probe.signal ?? `exit ${probe.status}`})`;
  }
  return false;
}

export interface IpmiSim {
  /** The UDP port of the simulated BMC on 127.0.0.1. */
  readonly port: number;
  /** Files holding the BMC's user name and password (the shipped commands read credentials from files). */
  readonly userFile: string;
  readonly passwordFile: string;
  /** The environment the shipped ipmi-* commands need to reach this BMC, but KINTSUGI_BMC_ADDRESS. */
  readonly commandEnv: Readonly<Record<string, string>>;
  /** The chassis calls ipmi_sim made, in order ("get power", "set power 0", ...). */
  chassisCalls(): string[];
  /** The chassis power now: 1 on, 0 off. */
  power(): number;
  stop(): void;
}

/** A free UDP port on 127.0.0.1 (ephemeral; closed before the simulator binds it). */
async function freeUdpPort(): Promise<number> {
  const socket = createSocket("udp4");
  await new Promise<void>((done) => socket.bind(0, "127.0.0.1", done));
  const port = socket.address().port;
  await new Promise<void>((done) => socket.close(done));
  return port;
}

/** Runs ipmitool (argv, no shell) against the simulator; resolves with its exit code and stdout. */
export function ipmitool(sim: Pick<IpmiSim, "port" | "userFile" | "passwordFile">, args: readonly string[]): Promise<{ code: number; stdout: string }> {
  const argv = [
    "-I",
    "lanplus",
    "-C",
    "3",
    "-H",
    "127.0.0.1",
    "-p",
    String(sim.port),
    "-U",
    readFileSync(sim.userFile, "utf8"),
    "-f",
    sim.passwordFile,
    ...args,
  ];
  return new Promise((done) => {
    execFile(IPMITOOL, argv, { timeout: 20_000 }, (error, stdout) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout }),
    );
  });
}

/**
 * Starts ipmi_sim in `dir` (which the caller removes) with the chassis power `power` (1 on, 0 off), and resolves once
 * it answers ipmitool (bounded wait, no fixed sleep).
 */
export async function startIpmiSim(dir: string, power: 0 | 1): Promise<IpmiSim> {
  const port = await freeUdpPort();
  const chassis = join(dir, "chassis-control");
  const powerFile = join(dir, "power");
  const callLog = join(dir, "chassis-calls");
  writeFileSync(
    join(dir, "lan.conf"),
    [
      'name "sim"',
      "set_working_mc 0x20",
      "  startlan 1",
      `    addr 127.0.0.1 ${port}`,
      "    priv_limit admin",
      "    allowed_auths_admin none md2 md5 straight",
      "    guid a123456789abcdefa123456789abcdef",
      "  endlan",
      `  chassis_control "${chassis}"`,
      '  user 2 true "admin" "s3cret-pw" admin 10 none md2 md5 straight',
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "emu"), "mc_setbmc 0x20\nmc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr\nmc_enable 0x20\n");
  writeFileSync(powerFile, `${power}\n`);
  writeFileSync(callLog, "");
  writeFileSync(
    chassis,
    [
      "#!/bin/sh",
      `echo "$*" >> '${callLog}'`,
      'case "$1" in',
      `  get) echo "power:$(cat '${powerFile}')" ;;`,
      `  set) if [ "$2" = power ]; then echo "$3" > '${powerFile}'; fi ;;`,
      "esac",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const userFile = join(dir, "user");
  const passwordFile = join(dir, "password");
  writeFileSync(userFile, "admin");
  writeFileSync(passwordFile, "s3cret-pw");
  const child = spawn(IPMI_SIM, ["-c", join(dir, "lan.conf"), "-f", join(dir, "emu"), "-s", join(dir, "state"), "-n"], { stdio: "ignore" });
  const sim: IpmiSim = {
    port,
    userFile,
    passwordFile,
    commandEnv: { KINTSUGI_IPMI_PORT: String(port), KINTSUGI_IPMI_USER_FILE: userFile, KINTSUGI_IPMI_PASSWORD_FILE: passwordFile },
    chassisCalls: () =>
      readFileSync(callLog, "utf8")
        .split("\n")
        .filter((l) => l !== ""),
    power: () => Number(readFileSync(powerFile, "utf8").trim()),
    stop: () => void child.kill(),
  };
  try {
    await until(
      "ipmi_sim answers",
      () => ipmitool(sim, ["chassis", "power", "status"]),
      (r) => r.code === 0,
      10_000,
    );
  } catch (err) {
    sim.stop();
    throw err;
  }
  return sim;
}
