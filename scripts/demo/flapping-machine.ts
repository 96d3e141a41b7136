import type { RepairChange } from "../../src/store/store-port.js";
import { pickMachineToFlap } from "./chaos.js";
import type { IncidentWorld } from "./incidents.js";
import type { FinishedRepair } from "./queue-mirror.js";
import { DEMO_TIMINGS } from "./timings.js";

/** How many of each machine's latest entries are remembered: escalation counts 2. */
const REMEMBERED_ENTRIES = 4;

/**
 * The cycle's flapping machine: once armed, the next machine kintsugi repairs breaks again right after its repair
 * (kintsugi leaves it alone as recently repaired until its entry is deleted), and once more after its second repair,
 * a repeat offender kintsugi escalates to a hold.
 */
export class FlappingMachine {
  private armed = false;
  /** The flapping machine, until it breaks once more after its second repair. */
  private offender: string | null = null;
  /** The machines repaired last, newest last, by serial. */
  private justRepaired: string[] = [];
  /** When each address's latest entries were created (scenario seconds), as escalation counts repairs. */
  private readonly created = new Map<string, number[]>();

  constructor(private readonly world: IncidentWorld) {}

  /** The next machine repaired flaps. */
  arm(): void {
    this.armed = true;
    this.world.tell("chaos", "the next machine kintsugi repairs breaks again right after its repair (a flapping machine)");
    this.flap();
  }

  /** kintsugi's committed changes and the repairs they finished: a repaired offender breaks once more. */
  committed(finished: readonly FinishedRepair[], changes: readonly RepairChange[]): void {
    const now = this.world.now();
    for (const { record, entry } of changes) {
      if (record.kind === "created") this.created.set(entry.address, [...(this.created.get(entry.address) ?? []).slice(1 - REMEMBERED_ENTRIES), now]);
    }
    for (const repair of finished) {
      const machine = this.world.dc.machines.find((m) => m.address === repair.address);
      if (!machine || !repair.succeeded) continue;
      this.justRepaired = [...this.justRepaired.slice(-4), machine.serial];
      if (machine.serial === this.offender && !this.world.stopped()) {
        this.offender = null;
        void this.world.reportBroken(machine, `${machine.serial} (${machine.address}) broke again after its second repair: a repeat offender`);
      }
    }
    if (finished.length > 0) this.flap();
  }

  /** A machine's state changed (sabakan's state-setter): the one just repaired may flap now. */
  changed(): void {
    this.flap();
  }

  private flap(): void {
    if (!this.armed) return;
    // Only a machine whose repair just now was its only one within the escalation window (its next repair must not be
    // escalated, only the one after it), and whose entry is recent enough for that one to fall within the window.
    const now = this.world.now();
    const once = this.justRepaired.filter((serial) => {
      const address = this.world.dc.machines.find((m) => m.serial === serial)?.address ?? "";
      const inWindow = (this.created.get(address) ?? []).filter((t) => now - t < DEMO_TIMINGS.escalationWindowSeconds);
      return inWindow.length === 1 && now - (inWindow[0] as number) <= DEMO_TIMINGS.flapEntryMaxAgeSeconds;
    });
    const victim = pickMachineToFlap(this.world.view(), once, this.world.rules);
    if (!victim) return;
    this.armed = false;
    this.offender = victim.serial;
    void this.world.reportBroken(victim, `${victim.serial} (${victim.address}) broke again right after its repair: UNHEALTHY`);
  }
}
