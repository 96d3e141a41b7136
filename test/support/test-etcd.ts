import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { untilTruthy } from "./until.js";

/** Where Debian's `etcd-server` package puts etcd; `.ci/run` installs it when it is missing. */
export const ETCD_BINARY = process.env["KINTSUGI_TEST_ETCD"] ?? "/usr/bin/etcd";

/** The `skip` option of every suite that needs a real etcd: false where there is one, else why not. */
export const ETCD_SKIP: string | false = existsSync(ETCD_BINARY) ? false : `etcd not found at ${ETCD_BINARY} (install Debian's etcd-server)`;

/** One member of a test etcd cluster: a child process on loopback with its own ports and data directory. */
export interface TestEtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  /** Whether its process is running now. */
  running(): boolean;
  /** SIGKILLs the member (its data stays) and waits for the process to end. */
  kill(): Promise<void>;
  /** Starts a killed member again on the same ports and data, and waits until it answers. */
  restart(): Promise<void>;
  /** Freezes the member (SIGSTOP): its connections stay open and nothing answers, as in a cut network. */
  pause(): void;
  /** Lets a paused member go on (SIGCONT). */
  resume(): void;
}

/** Where each member runs: its address, and the argv prefix that starts it there (e.g. `ip netns exec NAME`). */
export interface TestEtcdPlacement {
  hostOf(member: number): string;
  launcherOf(member: number): readonly string[];
}

/** Serving clients over TLS: etcd's certificate and key, and the CA whose client certificates it requires. */
export interface TestEtcdTls {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCaFile: string;
}

/** A test etcd: one member for most tests, three for failover tests. Always `stop()` it (in an `after` hook). */
export interface TestEtcd {
  /** Every member's client URL, for `etcd.endpoints`. */
  readonly endpoints: readonly string[];
  readonly members: readonly TestEtcdMember[];
  /** Kills every member and removes the data directories. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a member answers its health endpoint (etcd 3.4 serves /health on the client and the metrics URLs). */
async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === "true";
  } catch {
    return false;
  }
}

/**
 * Starts a real etcd of `members` members on 127.0.0.1, each on free ports picked just before, in a temporary
 * directory, and waits until every member reports healthy. A port taken between the pick and etcd's bind makes
 * the start fail: it is tried again on new ports. With `tls`, clients are served over https only, and only those
 * with a certificate signed by the client CA (health is then read from a plain-HTTP metrics URL).
 */
export async function startTestEtcd(options: { members?: 1 | 3; tls?: TestEtcdTls; placement?: TestEtcdPlacement } = {}): Promise<TestEtcd> {
  if (ETCD_SKIP) throw new Error(ETCD_SKIP);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.members ?? 1, options.tls ?? null, options.placement ?? LOOPBACK);
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

const LOOPBACK: TestEtcdPlacement = { hostOf: () => "127.0.0.1", launcherOf: () => [] };

async function startOnce(count: number, tls: TestEtcdTls | null, placement: TestEtcdPlacement): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), "kintsugi-etcd-"));
  const specs: Array<{ name: string; clientUrl: string; peerUrl: string; healthUrl: string; launcher: readonly string[] }> = [];
  for (let i = 0; i < count; i++) {
    const host = placement.hostOf(i);
    const clientUrl = `${tls ? "https" : "http"}://${host}:${await freePort()}`;
    specs.push({
      name: `m${i}`,
      clientUrl,
      peerUrl: `http://${host}:${await freePort()}`,
      healthUrl: tls ? `http://${host}:${await freePort()}` : clientUrl,
      launcher: placement.launcherOf(i),
    });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(",");
  const token = `kintsugi-test-${process.pid}-${Date.now()}`;
  const children = new Map<string, ChildProcess>();
  const output = new Map<string, string[]>();
  const launch = (s: (typeof specs)[number], state: "new" | "existing") => {
    const [program = ETCD_BINARY, ...prefix] = [...s.launcher, ETCD_BINARY];
    const child = spawn(
      program,
      [
        ...prefix,
        "--name",
        s.name,
        "--data-dir",
        join(dir, s.name),
        "--listen-client-urls",
        s.clientUrl,
        "--advertise-client-urls",
        s.clientUrl,
        "--listen-peer-urls",
        s.peerUrl,
        "--initial-advertise-peer-urls",
        s.peerUrl,
        "--initial-cluster",
        initialCluster,
        "--initial-cluster-state",
        state,
        "--initial-cluster-token",
        token,
        // Short heartbeats and elections: a killed member's loss is noticed in well under a second.
        "--heartbeat-interval",
        "50",
        "--election-timeout",
        "500",
        "--log-level",
        "error",
        ...(tls
          ? [
              "--cert-file",
              tls.certFile,
              "--key-file",
              tls.keyFile,
              "--client-cert-auth",
              "--trusted-ca-file",
              tls.clientCaFile,
              "--listen-metrics-urls",
              s.healthUrl,
            ]
          : []),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const lines: string[] = [];
    output.set(s.name, lines);
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      lines.push(chunk);
      if (lines.length > 50) lines.shift();
    });
    children.set(s.name, child);
  };
  const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const kill = async (name: string) => {
    const child = children.get(name);
    if (!child || ended(child)) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGCONT");
    child.kill("SIGKILL");
    await exited;
  };
  const waitHealthy = async (s: (typeof specs)[number]) => {
    await untilTruthy(`etcd member ${s.name} is healthy`, async () => {
      const child = children.get(s.name);
      if (child && ended(child)) throw new Error(`etcd member ${s.name} exited: ${(output.get(s.name) ?? []).join("").slice(-2000)}`);
      return healthy(s.healthUrl);
    });
  };
  const stop = async () => {
    await Promise.all(specs.map((s) => kill(s.name)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const s of specs) launch(s, "new");
    await Promise.all(specs.map(waitHealthy));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    endpoints: specs.map((s) => s.clientUrl),
    members: specs.map((s) => ({
      ...s,
      running: () => {
        const child = children.get(s.name);
        return child !== undefined && !ended(child);
      },
      kill: () => kill(s.name),
      pause: () => void children.get(s.name)?.kill("SIGSTOP"),
      resume: () => void children.get(s.name)?.kill("SIGCONT"),
      restart: async () => {
        await kill(s.name);
        launch(s, "existing");
        await waitHealthy(s);
      },
    })),
    stop,
  };
}
