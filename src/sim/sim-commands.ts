import type { CommandOptions, CommandOutcome, CommandRunner } from "../adapters/ports.js";
import type { SimRandom } from "./sim-random.js";
import type { SimWorld } from "./sim-world.js";

export const HEALTH_COMMAND = "sim-health";
export const REPAIR_COMMAND = "sim-repair";

/** A command the simulator was asked to run: health checks answer at once, repair commands end in virtual time. */
export interface CommandStart {
  readonly kind: string;
  readonly address: string;
  readonly at: number;
}

interface Running {
  readonly seq: number;
  readonly address: string;
  readonly kind: string;
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

/**
 * The CommandRunner port over the simulated world: the health check answers whether the machine works; a repair
 * command fails, hangs until its timeout, or ends well after a while and reboots the machine (fixing it if it
 * fixes that fault). Nothing runs until the simulator moves the clock past a command's end (`advanceTo`).
 */
export class SimCommands implements CommandRunner {
  private running: Running[] = [];
  private seq = 0;
  faults: CommandFaults;
  /** Called as a health check is answered and as a repair command starts (the invariants watch both). */
  onHealth: (address: string, healthy: boolean) => void = () => {};
  onStart: (start: CommandStart) => void = () => {};

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
    if (argv[0] === HEALTH_COMMAND) {
      const healthy = m !== undefined && this.world.healthy(m, this.now());
      this.onHealth(address, healthy);
      return Promise.resolve(ok(healthy ? "true\n" : "false\n"));
    }
    const kind = argv[1] ?? "";
    const now = this.now();
    this.onStart({ kind, address, at: now });
    const r = this.random;
    let endsAt: number;
    let outcome: CommandOutcome;
    if (r.chance(this.faults.hang) && options.timeoutSeconds > 0) {
      endsAt = now + options.timeoutSeconds * 1000;
      outcome = { kind: "timeout", timeoutSeconds: options.timeoutSeconds, stdout: "", stderr: "" };
    } else if (r.chance(this.faults.fail)) {
      endsAt = now + r.int(1, 20) * 1000;
      outcome = { kind: "exit", code: 1, signal: null, stdout: "", stderr: "BMC refused" };
    } else {
      endsAt = now + r.int(5, Math.max(5, Math.min(120, options.timeoutSeconds - 1))) * 1000;
      outcome = ok("");
    }
    return new Promise((resolve) => {
      const job: Running = { seq: this.seq++, address, kind, endsAt, outcome, resolve };
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

  /** The addresses whose repair command is running now. */
  runningAddresses(): Set<string> {
    return new Set(this.running.map((j) => j.address));
  }

  /** The earliest end of a running command (virtual ms), or null. */
  nextEnd(): number | null {
    return this.running.reduce<number | null>((min, j) => (min === null || j.endsAt < min ? j.endsAt : min), null);
  }

  /** Ends the commands due by `now`, in order; a command that ended well reboots (and may fix) its machine first. */
  advanceTo(now: number): void {
    const due = this.running.filter((j) => j.endsAt <= now).sort((a, b) => a.endsAt - b.endsAt || a.seq - b.seq);
    if (due.length === 0) return;
    this.running = this.running.filter((j) => j.endsAt > now);
    for (const j of due) {
      const m = this.world.at(j.address);
      if (m && j.outcome.kind === "ok") {
        const boot = this.random.chance(this.faults.lateBoot) ? this.random.int(600, 1800) : this.random.int(60, 240);
        this.world.repaired(m, j.kind, boot, j.endsAt);
      }
      j.resolve(j.outcome);
    }
  }
}
