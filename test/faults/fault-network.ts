import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { findProgram } from "../support/find-program.js";

const run = promisify(execFile);

/**
 * Where the fault suite's processes run and how a partition cuts one off. With network namespaces (as root), each
 * node (an etcd member, a replica) has its own namespace and address on a test subnet, linked by a veth pair to a
 * bridge in a hub namespace; this process reaches them through a veth of its own. A partition takes a node's link
 * down at the bridge. Without them (not root, or `ip netns` fails), everything is on 127.0.0.1 and nothing can be
 * partitioned.
 */
export interface FaultNetwork {
  /** null with namespaces; else why the partition faults cannot run. */
  readonly partitionsSkipped: string | null;
  /** The address node `name` listens on. */
  hostOf(name: string): string;
  /** The argv prefix that runs a program as node `name`: in its namespace, killed when this process dies. */
  launcherOf(name: string): string[];
  /** Cuts node `name` off from every other node and from this process. */
  cut(name: string): Promise<void>;
  heal(name: string): Promise<void>;
  /** Removes every namespace and link it made (also done when this process exits or is interrupted). */
  remove(): Promise<void>;
}

/** Namespaces and links are named `ktf<pid>x<n>-<node>`: whose they are, so a later run removes a dead run's. */
const PREFIX = "ktf";
const OWNED = /^ktf(\d+)x\d+(?:-|$)/;
/** 198.18.0.0/15 is set aside for network tests (RFC 2544): a /24 of it per network. */
const subnetOf = (n: number) => `198.18.${n}`;
const claimDir = (n: number) => join(tmpdir(), `kintsugi-fault-net-${subnetOf(n)}`);
let made = 0;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

const deathBound = (): string[] => {
  const setpriv = findProgram("setpriv");
  return setpriv ? [setpriv, "--pdeathsig", "KILL"] : [];
};

/** Kills what runs in namespace `ns` and deletes it; synchronous, so it also runs from an exit hook. */
function deleteNamespace(ns: string): void {
  try {
    const pids = execFileSync("ip", ["netns", "pids", ns], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    for (const pid of pids.split("\n").filter(Boolean)) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
  } catch {
    // no such namespace
  }
  try {
    execFileSync("ip", ["netns", "del", ns], { stdio: "ignore" });
  } catch {
    // no such namespace
  }
}

/** Removes the namespaces and subnet claims of fault-suite runs whose process is gone (killed before cleaning up). */
function sweepDeadRuns(): void {
  for (const ns of listed(() => execFileSync("ip", ["netns", "list"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))) {
    const m = OWNED.exec(ns);
    if (m && !alive(Number(m[1]))) deleteNamespace(ns);
  }
  for (const dir of readdirSync(tmpdir()).filter((d) => d.startsWith("kintsugi-fault-net-"))) {
    // A claim without its pid yet is being made right now.
    const owner = Number(listed(() => readFileSync(join(tmpdir(), dir, "pid"), "utf8"))[0] ?? 0);
    if (owner > 0 && !alive(owner)) rmSync(join(tmpdir(), dir), { recursive: true, force: true });
  }
}

/** The first word of each line `read` returns; none when it fails. */
function listed(read: () => string): string[] {
  try {
    return read()
      .split("\n")
      .map((l) => l.trim().split(" ")[0] ?? "")
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** Claims a free /24 of the test range for this process (a directory per subnet, holding the owner's pid). */
function claimSubnet(): number {
  for (let i = 0; i < 250; i++) {
    const n = (process.pid + i) % 250;
    try {
      mkdirSync(claimDir(n));
      writeFileSync(join(claimDir(n), "pid"), String(process.pid));
      return n;
    } catch {
      // taken by another run
    }
  }
  throw new Error("no free /24 in 198.18.0.0/16 for the fault suite's network");
}

function loopback(why: string): FaultNetwork {
  const bound = deathBound();
  return {
    partitionsSkipped: why,
    hostOf: () => "127.0.0.1",
    launcherOf: () => bound,
    cut: () => Promise.reject(new Error(`cannot partition: ${why}`)),
    heal: () => Promise.resolve(),
    remove: () => Promise.resolve(),
  };
}

/**
 * Makes the network of `nodes`: namespaces where this process may (root, with a working `ip netns`), else loopback
 * with `partitionsSkipped` saying why. Always `remove()` it; an exit hook and SIGINT/SIGTERM handlers remove it too.
 */
export async function startFaultNetwork(nodes: readonly string[]): Promise<FaultNetwork> {
  if (process.getuid?.() !== 0) return loopback("not root: network namespaces need root (CI runs the suite as root)");
  if (findProgram("ip") === null) return loopback("no `ip` command (Debian's iproute2)");
  sweepDeadRuns();
  const id = `${PREFIX}${process.pid}x${made++}`;
  const hub = `${id}-hub`;
  const nsOf = (node: string) => `${id}-${node}`;
  const subnet = claimSubnet();
  const hosts = new Map(nodes.map((node, i) => [node, `${subnetOf(subnet)}.${10 + i}`]));
  const namespaces = [hub, ...nodes.map(nsOf)];
  let removed = false;
  const removeNow = () => {
    if (removed) return;
    removed = true;
    for (const ns of namespaces) deleteNamespace(ns);
    rmSync(claimDir(subnet), { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    removeNow();
    process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGHUP" ? 1 : 15));
  };
  process.on("exit", removeNow);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, onSignal);
  const ip = (...args: string[]) => run("ip", args, { timeout: 10_000 });
  try {
    for (const ns of namespaces) await ip("netns", "add", ns);
    await ip("-n", hub, "link", "add", "br0", "type", "bridge");
    await ip("-n", hub, "link", "set", "br0", "up");
    await ip("link", "add", id, "type", "veth", "peer", "name", "p-test", "netns", hub);
    await ip("addr", "add", `${subnetOf(subnet)}.1/24`, "dev", id);
    await ip("link", "set", id, "up");
    await ip("-n", hub, "link", "set", "p-test", "master", "br0", "up");
    for (const node of nodes) {
      await ip("-n", nsOf(node), "link", "set", "lo", "up");
      await ip("-n", nsOf(node), "link", "add", "eth0", "type", "veth", "peer", "name", `p-${node}`, "netns", hub);
      await ip("-n", nsOf(node), "addr", "add", `${hosts.get(node)}/24`, "dev", "eth0");
      await ip("-n", nsOf(node), "link", "set", "eth0", "up");
      await ip("-n", hub, "link", "set", `p-${node}`, "master", "br0", "up");
    }
  } catch (err) {
    removeNow();
    return loopback(`ip netns failed: ${(err as Error).message.split("\n")[0]}`);
  }
  const bound = deathBound();
  const link = (node: string, state: "up" | "down") => ip("-n", hub, "link", "set", `p-${node}`, state).then(() => undefined);
  return {
    partitionsSkipped: null,
    hostOf: (node) => hosts.get(node) ?? "127.0.0.1",
    launcherOf: (node) => [...bound, "ip", "netns", "exec", nsOf(node)],
    cut: (node) => link(node, "down"),
    heal: (node) => link(node, "up"),
    remove: async () => {
      removeNow();
      process.off("exit", removeNow);
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(signal, onSignal);
    },
  };
}
