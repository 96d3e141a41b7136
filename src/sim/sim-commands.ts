import type { CommandOptions, CommandOutcome, CommandRunner } from "../adapters/ports.js";
import { COMMAND_BACKSTOP_SLACK_SECONDS, COMMAND_KILL_GRACE_SECONDS } from "../domain/queue/command-marker.js";
import type { SimRandom } from "./sim-random.js";
import type { SimMachine, SimWorld } from "./sim-world.js";

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
  /** The run of the replica that started it (see SimCommands.owner). */
  readonly run: string;
  readonly timeoutSeconds: number;
  /** It hangs: only a kill ends it (its runner's timeout, its backstop, its replica stopping). */
  readonly hangs: boolean;
  endsAt: number;
  outcome: CommandOutcome;
  /** Its replica froze: it runs on unseen (no outcome reaches a runner) until it ends, its backstop or the resume. */
  orphaned: boolean;
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
  /**
   * Armed: the next command (repair, success or diagnostics; with `hangs`, the next repair or diagnostics command,
   * made to hang) starts, and then `then` is told: the leader freezes after the pass, its command running on.
   */
  freezeAfterStart: { readonly hangs: boolean; readonly then: (start: CommandStart) => void } | null = null;
  /**
   * Armed: the next repair command that ends well on a broken machine did nothing (its BMC acknowledged a power
   * action it never performed): no reboot, and `then` is told (the machine's fault may clear by itself after).
   */
  noOpNext: ((m: SimMachine, at: number) => void) | null = null;
  /** The run of the replica whose runner starts commands now (a failover names another). */
  owner = "run-0";

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
    const freeze = this.freezeAfterStart;
    const hung = freeze?.hangs === true && start.kind !== "success" && options.timeoutSeconds > 0;
    const { endsAt, outcome } = hung ? this.hang(options.timeoutSeconds, now) : this.draw(start, options.timeoutSeconds, now);
    if (freeze && (hung || !freeze.hangs)) {
      this.freezeAfterStart = null;
      freeze.then(start);
    }
    return new Promise((resolve) => {
      const hangs = outcome.kind === "timeout";
      const job: Running = {
        seq: this.seq++,
        start,
        run: this.owner,
        timeoutSeconds: options.timeoutSeconds,
        hangs,
        endsAt,
        outcome,
        orphaned: false,
        resolve,
      };
      this.running.push(job);
      options.signal?.addEventListener(
        "abort",
        () => {
          // An orphan's replica is frozen: its abort (the simulator stopping the replica's workers) reaches no process.
          if (!this.running.includes(job) || job.orphaned) return resolve({ kind: "aborted" });
          this.running = this.running.filter((j) => j !== job);
          resolve({ kind: "aborted" });
        },
        { once: true },
      );
    });
  }

  /** A command that hangs: its runner's timeout ends it. */
  private hang(timeoutSeconds: number, now: number): { endsAt: number; outcome: CommandOutcome } {
    return { endsAt: now + timeoutSeconds * 1000, outcome: { kind: "timeout", timeoutSeconds, stdout: "", stderr: "" } };
  }

  private draw(start: CommandStart, timeoutSeconds: number, now: number): { endsAt: number; outcome: CommandOutcome } {
    const r = this.random;
    const timeout = this.hang(timeoutSeconds, now).outcome;
    if (start.kind !== "repair") {
      // A success or diagnostics command: a few seconds, failed one time in ten (diagnostics also hang now and then).
      if (start.kind === "diagnostics" && r.chance(0.05) && timeoutSeconds > 0) return { endsAt: now + timeoutSeconds * 1000, outcome: timeout };
      return { endsAt: now + r.int(1, 10) * 1000, outcome: r.chance(0.1) ? exit(`${start.kind} command failed`) : ok("") };
    }
    if (r.chance(this.faults.hang) && timeoutSeconds > 0) return { endsAt: now + timeoutSeconds * 1000, outcome: timeout };
    if (r.chance(this.faults.fail)) return { endsAt: now + r.int(1, 20) * 1000, outcome: exit("BMC refused") };
    return { endsAt: now + r.int(5, Math.max(5, Math.min(120, timeoutSeconds - 1))) * 1000, outcome: ok("") };
  }

  /** The addresses whose repair command is running now (an orphan's too). */
  runningAddresses(): Set<string> {
    return new Set(this.running.filter((j) => j.start.kind === "repair").map((j) => j.start.address));
  }

  /** The commands (repair, success, diagnostics) running on the machine at `address` now, orphans included. */
  runningOn(address: string): readonly CommandStart[] {
    return this.running.filter((j) => j.start.address === address).map((j) => j.start);
  }

  /** How many commands the leader's runner runs now (not those a frozen replica left). */
  live(): number {
    return this.running.filter((j) => !j.orphaned).length;
  }

  /** Whether a command that hangs runs now (a freeze then leaves it to its backstop). */
  hanging(): boolean {
    return this.running.some((j) => j.hangs && !j.orphaned);
  }

  /**
   * The replica of run `owner` freezes at `now` until `resumeAt` (SIGSTOP, a long pause): its commands are children
   * it cannot kill, so they run on, unseen by any runner, until they end by themselves, their backstop kills them
   * (timeout(1): `timeout + kill grace + 1 s` after their start) or the replica resumes and, its lease lost, kills
   * them. A killed or stopped replica's commands die with it (the launcher's watcher): the runner's abort ends them.
   */
  freeze(owner: string, resumeAt: number): number {
    let n = 0;
    for (const j of this.running) {
      if (j.run !== owner || j.orphaned) continue;
      n++;
      j.orphaned = true;
      const backstop = j.timeoutSeconds > 0 ? j.start.at + (j.timeoutSeconds + COMMAND_KILL_GRACE_SECONDS + COMMAND_BACKSTOP_SLACK_SECONDS) * 1000 : Infinity;
      const natural = j.hangs ? Infinity : j.endsAt;
      const end = Math.min(natural, backstop, resumeAt);
      if (end < natural) j.outcome = { kind: "exit", code: null, signal: "SIGKILL", stdout: "", stderr: "killed" };
      j.endsAt = end;
    }
    return n;
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
      const noOp = this.noOpNext;
      if (m && j.start.kind === "repair" && j.outcome.kind === "ok" && noOp !== null && m.broken !== null) {
        this.noOpNext = null;
        noOp(m, j.endsAt);
      } else if (m && j.start.kind === "repair" && j.outcome.kind === "ok") {
        // An orphan that ended by itself reboots its machine all the same: nobody records it.
        const boot = this.random.chance(this.faults.lateBoot) ? this.random.int(600, 1800) : this.random.int(60, 240);
        this.world.repaired(m, j.start.fix, boot, j.endsAt, j.start.entryIndex);
      }
      if (j.orphaned) continue;
      this.onEnd(j.start, j.outcome, j.endsAt);
      j.resolve(j.outcome);
    }
  }
}
