import type { CommandOptions, CommandOutcome, CommandRunner } from "../adapters/ports.js";
import type { SimRandom } from "./sim-random.js";
import type { SimWorld } from "./sim-world.js";

export const HEALTH_COMMAND = "sim-health";
export const REPAIR_COMMAND = "sim-repair";
export const SUCCESS_COMMAND = "sim-success";
export const DIAGNOSTICS_COMMAND = "sim-diagnostics";

/** A command the runner started (health checks excepted): a step's repair command, a success or a diagnostics command. */
export interface CommandStart {
  readonly kind: "repair" | "success" | "diagnostics";
  /** For a repair command, what it does: `reboot` or `power-cycle`. */
  readonly fix: string;
  readonly address: string;
  /** The entry it runs for (KINTSUGI_ENTRY_INDEX); null when the runner gave none. */
  readonly entryIndex: number | null;
  /** 1 for the first try of a step's command, 2 for its first retry, ... (KINTSUGI_ATTEMPT). */
  readonly attempt: number;
  /** The step (0-based) it runs for (KINTSUGI_STEP - 1). */
  readonly step: number;
  readonly at: number;
}

interface Running {
  readonly seq: number;
  readonly start: CommandStart;
  readonly endsAt: number;
  readonly outcome: CommandOutcome;
  readonly resolve: (outcome: CommandOutcome) => void;
}

/** How commands misbehave (probabilities per repair command). */
export interface CommandFaults {
  readonly fail: number;
  readonly hang: number;
  /** A machine that boots slower than the watch (recovering late). */
  readonly lateBoot: number;
}

const ok = (stdout: string): CommandOutcome => ({ kind: "ok", stdout, stderr: "" });
const exit = (stderr: string): CommandOutcome => ({ kind: "exit", code: 1, signal: null, stdout: "", stderr });
const KINDS: Readonly<Record<string, CommandStart["kind"]>> = {
  [REPAIR_COMMAND]: "repair",
  [SUCCESS_COMMAND]: "success",
  [DIAGNOSTICS_COMMAND]: "diagnostics",
};

/**
 * The CommandRunner port over the simulated world: the health check answers whether the machine works; a repair
 * command fails, hangs until its timeout, or ends well after a while and reboots the machine (fixing it if it
 * fixes that fault); success and diagnostics commands end after a few seconds, now and then failed. Nothing runs
 * until the simulator moves the clock past a command's end (`advanceTo`).
 */
export class SimCommands implements CommandRunner {
  private running: Running[] = [];
  private seq = 0;
  faults: CommandFaults;
  /** Called as a health check is answered, as a command starts and as it ends (the invariants watch them). */
  onHealth: (address: string, healthy: boolean, entryIndex: number | null) => void = () => {};
  onStart: (start: CommandStart) => void = () => {};
  onEnd: (start: CommandStart, outcome: CommandOutcome, at: number) => void = () => {};
  /**
   * Armed: the next first try of a repair command is never started; the leader fails over instead, between the
   * step's start (committed) and its command. Called with the command that did not start.
   */
  failoverInstead: ((start: CommandStart) => void) | null = null;

  constructor(
    private readonly world: SimWorld,
    private readonly random: SimRandom,
    private readonly now: () => number,
    faults: CommandFaults,
  ) {
    this.faults = faults;
  }

  run(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    const address = argv[argv.length - 1] ?? "";
    const m = this.world.at(address);
    const now = this.now();
    const env = options.env ?? {};
    const index = Number(env.KINTSUGI_ENTRY_INDEX);
    const entryIndex = env.KINTSUGI_ENTRY_INDEX === undefined || !Number.isSafeInteger(index) ? null : index;
    if (argv[0] === HEALTH_COMMAND) {
      const healthy = m !== undefined && this.world.healthy(m, now);
      this.onHealth(address, healthy, entryIndex);
      return Promise.resolve(ok(healthy ? "true\n" : "false\n"));
    }
    const start: CommandStart = {
      kind: KINDS[argv[0] ?? ""] ?? "repair",
      fix: argv[0] === REPAIR_COMMAND ? (argv[1] ?? "") : "",
      address,
      entryIndex,
      attempt: Number(env.KINTSUGI_ATTEMPT) || 1,
      step: (Number(env.KINTSUGI_STEP) || 1) - 1,
      at: now,
    };
    const instead = this.failoverInstead;
    if (instead && start.kind === "repair" && start.attempt === 1) {
      this.failoverInstead = null;
      instead(start);
      return new Promise((resolve) => options.signal?.addEventListener("abort", () => resolve({ kind: "aborted" }), { once: true }));
    }
    this.onStart(start);
    const { endsAt, outcome } = this.draw(start, options.timeoutSeconds, now);
    return new Promise((resolve) => {
      const job: Running = { seq: this.seq++, start, endsAt, outcome, resolve };
      this.running.push(job);
      options.signal?.addEventListener(
        "abort",
        () => {
          if (!this.running.includes(job)) return;
          this.running = this.running.filter((j) => j !== job);
          resolve({ kind: "aborted" });
        },
        { once: true },
      );
    });
  }

  private draw(start: CommandStart, timeoutSeconds: number, now: number): { endsAt: number; outcome: CommandOutcome } {
    const r = this.random;
    const timeout = { kind: "timeout", timeoutSeconds, stdout: "", stderr: "" } as const;
    if (start.kind !== "repair") {
      // A success or diagnostics command: a few seconds, failed one time in ten (diagnostics also hang now and then).
      if (start.kind === "diagnostics" && r.chance(0.05) && timeoutSeconds > 0) return { endsAt: now + timeoutSeconds * 1000, outcome: timeout };
      return { endsAt: now + r.int(1, 10) * 1000, outcome: r.chance(0.1) ? exit(`${start.kind} command failed`) : ok("") };
    }
    if (r.chance(this.faults.hang) && timeoutSeconds > 0) return { endsAt: now + timeoutSeconds * 1000, outcome: timeout };
    if (r.chance(this.faults.fail)) return { endsAt: now + r.int(1, 20) * 1000, outcome: exit("BMC refused") };
    return { endsAt: now + r.int(5, Math.max(5, Math.min(120, timeoutSeconds - 1))) * 1000, outcome: ok("") };
  }

  /** The addresses whose repair command is running now. */
  runningAddresses(): Set<string> {
    return new Set(this.running.filter((j) => j.start.kind === "repair").map((j) => j.start.address));
  }

  /** The earliest end of a running command (virtual ms), or null. */
  nextEnd(): number | null {
    return this.running.reduce<number | null>((min, j) => (min === null || j.endsAt < min ? j.endsAt : min), null);
  }

  /** Ends the commands due by `now`, in order; a repair command that ended well reboots (and may fix) its machine first. */
  advanceTo(now: number): void {
    const due = this.running.filter((j) => j.endsAt <= now).sort((a, b) => a.endsAt - b.endsAt || a.seq - b.seq);
    if (due.length === 0) return;
    this.running = this.running.filter((j) => j.endsAt > now);
    for (const j of due) {
      const m = this.world.at(j.start.address);
      if (m && j.start.kind === "repair" && j.outcome.kind === "ok") {
        const boot = this.random.chance(this.faults.lateBoot) ? this.random.int(600, 1800) : this.random.int(60, 240);
        this.world.repaired(m, j.start.fix, boot, j.endsAt, j.start.entryIndex);
      }
      this.onEnd(j.start, j.outcome, j.endsAt);
      j.resolve(j.outcome);
    }
  }
}
