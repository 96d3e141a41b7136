// One measured `kintsugi serve` of bench/abuse: started on the bench's database with its config, GET /health probed
// from a worker thread (so that the bench's own work, the test sabakan's answers among it, does not delay the probe)
// and its memory read from /proc, with a guard that kills it past GUARD_MB so that the shared machine survives the
// builds that grow without bound.
import { readFileSync, writeFileSync } from "node:fs";
import { sha256Hex } from "../src/auth/tokens.js";
import { Worker } from "node:worker_threads";
import { serveProcess, type ServeProcess } from "../test/support/serve-process.js";
import { parsePrometheus, sampleValue } from "../test/support/prometheus-text.js";

/** The resident memory past which the bench kills the server (and says so). */
export const GUARD_MB = Number(process.env["KINTSUGI_BENCH_GUARD_MB"] ?? 3_000);
const PROBE_EVERY_MS = 50;
const START_TIMEOUT_MS = 120_000;

/** What a measured run saw of the server. */
export interface ServerFigures {
  /** /health latencies (ms), sorted; a probe still waiting when the run ended counts with its wait so far. */
  readonly health: readonly number[];
  /** Whether some probe was still unanswered at the end (its figure is then a lower bound). */
  readonly unanswered: boolean;
  readonly failedProbes: number;
  readonly peakMb: number;
  /** Why the server is gone before the end, if it is: its exit, or the guard. */
  readonly gone: string | null;
  /**
   * The server's own event-loop delay over the work (ms; kintsugi_event_loop_delay_seconds, scraped before and after
   * it), which tells its blocking apart from this machine's scheduler delaying the probe; null from a build without it.
   */
  readonly loopDelay: { readonly p99: number; readonly max: number } | null;
}

/** The server's event-loop delay since the previous scrape of /metrics (ms), or null when it does not serve it. */
async function scrapeLoopDelay(url: string): Promise<{ p99: number; max: number } | null> {
  try {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_VIEWER}` } });
    const { samples } = parsePrometheus(await res.text());
    const [p99, max] = ["p99", "max"].map((stat) => sampleValue(samples, "kintsugi_event_loop_delay_seconds", { stat }));
    return p99 === undefined || max === undefined ? null : { p99: p99 * 1000, max: max * 1000 };
  } catch {
    return null;
  }
}

// Plain JavaScript for the worker: probes GET /health one at a time, PROBE_EVERY_MS apart, until told to stop.
const PROBE = `
const { parentPort, workerData } = require("node:worker_threads");
const latencies = [];
let failed = 0, inFlight = null, stopping = false;
parentPort.on("message", () => {
  stopping = true;
  parentPort.postMessage({ latencies, failed, pending: inFlight === null ? null : performance.now() - inFlight });
});
(async () => {
  let first = true;
  while (!stopping) {
    inFlight = performance.now();
    try {
      const res = await fetch(workerData.url + "/health");
      await res.arrayBuffer();
      // The first probe opens the connection and warms the worker: it only says the probe is ready.
      if (first) parentPort.postMessage("ready");
      else if (!stopping) latencies.push(performance.now() - inFlight);
      first = false;
    } catch {
      failed++;
    }
    inFlight = null;
    await new Promise((r) => setTimeout(r, workerData.every));
  }
})();
`;

function memoryMb(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(/(\d+) kB/.exec(status.split("\n").find((l) => l.startsWith(key)) ?? "")?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/** A started server; `measure` runs work against it and stops it. */
export class MeasuredServer {
  private peakMb = 0;
  private guardTripped: string | null = null;
  private exitedWith: number | null | undefined;
  private readonly watchdog: NodeJS.Timeout;

  private constructor(
    private readonly serve: ServeProcess,
    readonly url: string,
    private readonly profiled: boolean,
  ) {
    const pid = serve.child.pid as number;
    void serve.exited.then((code) => (this.exitedWith = code));
    this.watchdog = setInterval(() => {
      const m = memoryMb(pid);
      if (!m) return;
      this.peakMb = Math.max(this.peakMb, m.hwm, m.rss);
      if (m.rss > GUARD_MB && this.guardTripped === null) {
        this.guardTripped = `killed by the bench at ${Math.round(m.rss)} MB RSS (guard ${GUARD_MB} MB)`;
        serve.child.kill("SIGKILL");
      }
    }, 100);
  }

  /**
   * Starts `bin serve --config config` in `cwd` (through `launcher`, see serveProcess) and waits for its URL. A
   * launcher is a profiler's: the server is then stopped with SIGTERM, so that it writes its profile.
   */
  static async start(bin: string, config: string, cwd: string, launcher: readonly string[] = []): Promise<MeasuredServer> {
    const serve = serveProcess(["--config", config], cwd, undefined, undefined, bin, launcher);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`serve did not start within ${START_TIMEOUT_MS} ms: ${serve.stderr()}`)), START_TIMEOUT_MS)),
    );
    try {
      return new MeasuredServer(serve, await Promise.race([serve.url, late]), launcher.length > 0);
    } catch (err) {
      serve.child.kill("SIGKILL");
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The server's resident memory now (VmRSS, MB), or null once it is gone. */
  residentMb(): number | null {
    return memoryMb(this.serve.child.pid as number)?.rss ?? null;
  }

  /** The server's log records so far. */
  logRecords(): ReturnType<ServeProcess["logRecords"]> {
    return this.serve.logRecords();
  }

  /** Why the server is gone, or null while it runs. */
  gone(): string | null {
    if (this.guardTripped) return this.guardTripped;
    if (this.exitedWith === undefined) return null;
    const last =
      this.serve
        .stderr()
        .trim()
        .split("\n")
        .filter((l) => /Error|FATAL|heap/i.test(l))
        .at(-1) ??
      this.serve.stderr().trim().split("\n").at(-1) ??
      "";
    return `crashed (exit ${this.exitedWith})${last ? `: ${last.trim().slice(0, 120)}` : ""}`;
  }

  /** Resolves with the reason once the server is gone. */
  async whenGone(): Promise<string> {
    await this.serve.exited;
    return this.gone() ?? "exited";
  }

  /**
   * Probes /health while `work` runs (at most `timeoutMs`; then `onTimeout` is its result), then stops the server
   * (SIGKILL: a frozen one would not hear SIGTERM) and returns the result with the figures.
   */
  async measure<T>(work: () => Promise<T>, timeoutMs: number, onTimeout: (ms: number) => T): Promise<{ result: T; figures: ServerFigures }> {
    const probe = new Worker(PROBE, { eval: true, workerData: { url: this.url, every: PROBE_EVERY_MS } });
    await new Promise((resolve) => probe.once("message", resolve));
    // Restarts the server's event-loop window: what the next scrape reads is the work's.
    await scrapeLoopDelay(this.url);
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([work(), new Promise<T>((resolve) => (timer = setTimeout(() => resolve(onTimeout(timeoutMs)), timeoutMs)))]);
    clearTimeout(timer);
    const loopDelay = this.gone() === null ? await scrapeLoopDelay(this.url) : null;
    const probed = await new Promise<{ latencies: number[]; failed: number; pending: number | null }>((resolve) => {
      probe.once("message", resolve);
      probe.postMessage("stop");
    });
    await probe.terminate();
    const gone = this.gone();
    const m = memoryMb(this.serve.child.pid as number);
    if (m) this.peakMb = Math.max(this.peakMb, m.hwm);
    clearInterval(this.watchdog);
    this.serve.child.kill(this.profiled ? "SIGTERM" : "SIGKILL");
    await this.serve.exited;
    const health = [...probed.latencies, ...(probed.pending === null ? [] : [probed.pending])].sort((a, b) => a - b);
    return { result, figures: { health, unanswered: probed.pending !== null, failedProbes: probed.failed, peakMb: this.peakMb, gone, loopDelay } };
  }
}

/** The `p`th percentile of sorted values (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)]!;
}

/** The benches' viewer and admin tokens. */
export const BENCH_VIEWER = "kintsugi_bench-abuse-viewer-token";
export const BENCH_ADMIN = "kintsugi_bench-abuse-admin-token";

/**
 * Writes the benches' `serve` config to `path`: SQLite beside it, the test sabakan at `sabakanUrl` polled once a year
 * (the benches ask it themselves), one operation whose repair is `true` and whose machine never heals, a viewer and an
 * admin token; `extra` is YAML put before `repair:` (top-level keys, each line ending in a newline).
 */
export function writeBenchConfig(path: string, sabakanUrl: string, extra = ""): string {
  writeFileSync(
    path,
    `listen: "127.0.0.1:0"
database: ./kintsugi.db
sabakan:
  url: "${sabakanUrl}"
  schedule: "0 0 1 1 *"
${extra}repair:
  repair_procedures:
    - machine_types: ["qemu"]
      repair_operations:
        - operation: unhealthy
          repair_steps:
            - repair_command: ["true"]
          health_check_command: ["false"]
auth:
  anonymous: none
  tokens:
    - { name: dashboard, role: viewer, sha256: "${sha256Hex(BENCH_VIEWER)}" }
    - { name: bench, role: admin, sha256: "${sha256Hex(BENCH_ADMIN)}" }
`,
  );
  return path;
}
