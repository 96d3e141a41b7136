import { isHoldActive } from "../domain/holds/machine-holds.js";
import type { SuccessProof } from "../domain/proof/repair-evidence.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { Checks } from "./sim-checks.js";
import type { CommandStart } from "./sim-commands.js";
import { bootingAfterCommand, cordonedFor, etcdGoodForRepair, healthyByEverySignal, planesDown } from "./sim-truth.js";
import type { SimMachine, SimWorld } from "./sim-world.js";

/** What the pass that decided found of an entry's machine: its health check's answer and the world's truth. */
export interface HealthAnswer {
  readonly healthy: boolean;
  /** Healthy by the health check and every signal the proof requires (see healthyByEverySignal). */
  readonly proven: boolean;
  readonly at: number;
}

/**
 * The invariants checked as kintsugi starts something on a machine (a drain's cordon, a command): no disruption of
 * a machine found healthy by the pass that decided it, no command on a held machine, nothing started while the queue
 * is disabled, no disruption while etcd lacks quorum (CKE's EtcdIsGoodForRepair: at most one control plane out) and
 * one control plane at a time, no drain before its back-off ends, and the diagnostics command once, before the
 * entry's first drain or repair command. A retry of a step's command continues the step and is judged only for holds.
 */
export class DisruptionInvariants {
  /** Each entry's health answer in the pass deciding now (reset as a pass starts), and its last one ever. */
  private answers = new Map<number, HealthAnswer>();
  readonly lastAnswer = new Map<number, HealthAnswer>();
  private readonly diagnosed = new Set<number>();
  /** Entries that started a drain or a repair command. */
  readonly disrupted = new Set<number>();

  constructor(
    private readonly checks: Checks,
    private readonly world: SimWorld,
    private readonly store: KintsugiStore,
    private readonly proof: SuccessProof | undefined,
    private readonly now: () => number,
    /** Whether a repair command runs for the address now. */
    private readonly commandRunning: (address: string) => boolean,
    /**
     * The control-plane entries other than for `address` that hold the one-control-plane turn, as the runner's last
     * decision tells: mid-step (draining, or watching after their command), not backing off, and not waiting for a
     * control-plane rule or a hold (those may have given the turn up).
     */
    private readonly turnHolders: (address: string) => readonly number[] = () => [],
  ) {}

  /** A runner pass begins: the health answers it gathers are what its decisions are made on. */
  passStarts(): void {
    this.answers = new Map();
  }

  /** This pass's answer for `entryIndex`, if its health was checked. */
  answerOf(entryIndex: number): HealthAnswer | undefined {
    return this.answers.get(entryIndex);
  }

  healthAnswered(address: string, healthy: boolean, entryIndex: number | null): void {
    const m = this.world.at(address);
    if (entryIndex === null || !m) return;
    const entry = this.store.entries.get(entryIndex) ?? undefined;
    const answer = { healthy, proven: healthyByEverySignal(m, entry, this.proof, healthy), at: this.now() };
    this.answers.set(entryIndex, answer);
    this.lastAnswer.set(entryIndex, answer);
  }

  /** A drain cordons `m` for entry `entryIndex`. */
  cordon(m: SimMachine, entryIndex: number | null): void {
    this.starts({ kind: "cordon", address: m.address, entryIndex, attempt: 1 });
  }

  /** A command starts (the simulated CommandRunner reports every one but the health checks). */
  command(start: CommandStart): void {
    this.starts({ kind: start.kind, address: start.address, entryIndex: start.entryIndex, attempt: start.attempt });
  }

  private starts(s: { kind: "cordon" | CommandStart["kind"]; address: string; entryIndex: number | null; attempt: number }): void {
    const { checks } = this;
    const now = this.now();
    const m = this.world.at(s.address);
    if (!m) return;
    const what = s.kind === "cordon" ? "cordon" : `${s.kind} command${s.attempt > 1 ? ` (attempt ${s.attempt})` : ""}`;
    const of = `${what} for ${s.address}${s.entryIndex === null ? "" : ` (entry ${s.entryIndex})`}`;
    const entry = s.entryIndex === null ? null : this.store.entries.get(s.entryIndex);
    const destructive = s.kind === "cordon" || s.kind === "repair";
    const starting = s.kind === "cordon" || s.kind === "diagnostics" || (s.kind === "repair" && s.attempt === 1);
    if (destructive) {
      const answer = s.entryIndex === null ? undefined : this.answers.get(s.entryIndex);
      checks.check(
        "no-disruption-of-a-healthy-machine",
        answer?.proven !== true,
        () => `${of}, whose health check (and proof) said healthy in the pass that decided it`,
        s.address,
        s.entryIndex,
      );
    }
    const held = this.store.holds.list().find((h) => h.address === s.address && isHoldActive(h, now));
    if (s.kind !== "cordon")
      checks.check("no-command-for-a-held-machine", held === undefined, () => `${of}, which is held by ${held?.setBy}`, s.address, s.entryIndex);
    if (starting)
      checks.check(
        "nothing-starts-while-disabled",
        this.store.settings.repairQueueEnabled(),
        () => `${of} while the repair queue is disabled`,
        s.address,
        s.entryIndex,
      );
    if (destructive && starting) {
      const cpCount = this.store.settings.constraints().controlPlaneCount;
      checks.check(
        "etcd-quorum",
        etcdGoodForRepair(this.world, cpCount, m.role === "control-plane" ? m.address : null),
        () =>
          `${of} while control planes ${planesDown(this.world)
            .map((p) => p.address)
            .join(
              ", ",
            )} are out: with ${m.role === "control-plane" ? "it" : "the repair"}, etcd is not good for repair (a majority and control-plane-count ${cpCount} - 1 Ready)`,
        s.address,
        s.entryIndex,
      );
      if (m.role === "control-plane") {
        // A control plane whose entry its pass found healthy finishes: its cordon is being lifted.
        const finishing = (p: SimMachine) => {
          const owner = cordonedFor(p);
          return owner !== null && this.answers.get(owner)?.proven === true;
        };
        const others = this.world.machines.filter(
          (p) =>
            p !== m &&
            p.role === "control-plane" &&
            ((cordonedFor(p) !== null && !finishing(p)) || this.commandRunning(p.address) || bootingAfterCommand(p, now)),
        );
        checks.check(
          "one-control-plane-disrupted",
          others.length === 0,
          () => `${of} while control plane ${others[0]?.address} is disrupted by kintsugi`,
          s.address,
          s.entryIndex,
        );
        const holders = this.turnHolders(s.address).filter((i) => this.answers.get(i)?.proven !== true);
        checks.check(
          "one-control-plane-at-a-time",
          holders.length === 0,
          () => `${of} while entry ${holders[0]} holds the one-control-plane turn (its control plane mid-step)`,
          s.address,
          s.entryIndex,
        );
      }
    }
    if (s.kind === "cordon" && entry) {
      const expire = entry.drainBackoffExpire;
      checks.check(
        "drain-back-off-respected",
        expire === null || expire <= now,
        () => `${of} before its drain back-off ends at ${new Date(expire ?? 0).toISOString()}`,
        s.address,
        s.entryIndex,
      );
    }
    if (s.kind === "diagnostics" && s.entryIndex !== null) {
      const again = this.diagnosed.has(s.entryIndex);
      const late = this.disrupted.has(s.entryIndex);
      checks.check(
        "diagnostics-once-before-the-first-step",
        !again && !late,
        () => `${of}: ${again ? "it ran for this entry already" : "the entry already drained or ran a repair command"}`,
        s.address,
        s.entryIndex,
      );
      this.diagnosed.add(s.entryIndex);
    }
    if (destructive && s.entryIndex !== null) this.disrupted.add(s.entryIndex);
  }
}
