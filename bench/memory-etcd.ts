// bench/memory's etcd: a one-member test etcd (test/support/test-etcd), its process's memory read from /proc, and
// `kintsugi db copy` (the built binary) of a seeded SQLite file into one of its prefixes.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../test/support/run-cli.js";
import { startTestEtcd, type TestEtcd } from "../test/support/test-etcd.js";

/** A process's resident memory and its peak, in MB. */
export interface Resident {
  readonly rss: number;
  readonly peak: number;
}

/** VmRSS and VmHWM of process `pid` from /proc. */
export function resident(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

export const mb = (m: Resident) => `${m.rss.toFixed(0)} MB resident (peak ${m.peak.toFixed(0)} MB)`;

/**
 * The pid of the etcd serving `clientUrl`: test-etcd does not expose its children, so it is found by its command line
 * (the client URL holds a port picked for it alone).
 */
function etcdPid(clientUrl: string): number {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const at = argv.indexOf("--listen-client-urls");
      if (at >= 0 && argv[at + 1] === clientUrl) return Number(name);
    } catch {
      // the process ended while the list was read
    }
  }
  throw new Error(`no etcd process listens on ${clientUrl}`);
}

/** A running bench etcd: where it listens and its memory now. */
export interface BenchEtcd {
  readonly etcd: TestEtcd;
  readonly endpoint: string;
  memory(): Resident;
}

export async function startBenchEtcd(): Promise<BenchEtcd> {
  const etcd = await startTestEtcd();
  const endpoint = etcd.endpoints[0] as string;
  const pid = etcdPid(endpoint);
  return { etcd, endpoint, memory: () => resident(pid) };
}

/** The config section that points kintsugi at `prefix` on the bench etcd (a long timeout: the machine is shared). */
export const etcdStoreConfig = (endpoint: string, prefix: string) =>
  `store: etcd\netcd:\n  endpoints: [${JSON.stringify(endpoint)}]\n  prefix: ${prefix}\n  timeout: 30s\n`;

/** `kintsugi db copy --from sqlite:FILE --to etcd` into the empty `prefix`; returns its seconds, fails with its output. */
export async function copyIntoEtcd(dir: string, file: string, endpoint: string, prefix: string): Promise<number> {
  const config = join(dir, "copy.yaml");
  writeFileSync(config, etcdStoreConfig(endpoint, prefix));
  const began = performance.now();
  const res = await runCli(["db", "copy", "--from", `sqlite:${file}`, "--to", "etcd", "--config", config], { cwd: dir, timeoutMs: 60 * 60_000 });
  if (res.code !== 0) throw new Error(`kintsugi db copy exited ${res.code}: ${res.stderr}${res.stdout}`);
  return (performance.now() - began) / 1000;
}
