import type { RepairChange } from "../../src/store/store-port.js";
import { machinesThatMayBreak, pickMachineToBreak, type ChaosMachine } from "./chaos.js";
import type { DemoMachine } from "./data-center.js";
import type { IncidentWorld } from "./incidents.js";
import { DEMO_TIMINGS } from "./timings.js";

/**
 * A repair that fails, and the operator's answer to every failed repair. A machine breaks and its BMC stops
 * answering, so its repair command fails: kintsugi says why (the failure's reason ends with the command's stderr)
 * and pacing drops its rack back to one repair at a time. A while after any repair fails, the operator reads why
 * (`RepairEntry.failure`, what `kintsugi repair-queue list` prints on stderr), reseats the BMC and power-cycles the
 * machine by hand when that was the fault, and deletes the failed entry. The operator's routine cleanup leaves failed
 * entries to this: a failed entry deleted unread would only be repaired, and fail, again.
 */
/** Down, or with an entry kintsugi has not finished: a repair there may still succeed. */
const isBusy = (m: ChaosMachine): boolean => m.state !== "HEALTHY" || !m.works || (m.inQueue && !m.lingers);

export class FailedRepairs {
  /** Machines whose BMC the incident stopped, by address. */
  private readonly deadBmcs = new Map<string, DemoMachine>();
  /** Failed entries the operator is about to look at, by index. */
  private readonly looking = new Set<number>();

  constructor(private readonly world: IncidentWorld) {}

  /**
   * The rack the next failed repair will be in, to keep quiet until then: of those with a machine that may break, the
   * one with the fewest machines down or under repair (those end soonest), then the most that may break.
   */
  rackToFail(): number | null {
    const { world } = this;
    const machines = world.view();
    const ready = machinesThatMayBreak(machines, world.now(), { ...world.rules, maxDown: Number.POSITIVE_INFINITY });
    const racks = [...new Set(ready.map((m) => m.rack))];
    const busy = (rack: number) => machines.filter((m) => m.rack === rack && isBusy(m)).length;
    const free = (rack: number) => ready.filter((m) => m.rack === rack).length;
    return racks.sort((a, b) => busy(a) - busy(b) || free(b) - free(a))[0] ?? null;
  }

  /**
   * A machine of `rack` breaks and its BMC stops answering, once nothing there is down or under repair (a repair that
   * succeeded after the failure would take the rack's allowance up again before its kubelets stop). False when that
   * cannot be yet.
   */
  strike(rack: number): boolean {
    const { world } = this;
    const machines = world.view().filter((m) => m.rack === rack);
    if (machines.some(isBusy)) return false;
    const victim = pickMachineToBreak(machines, world.now(), { ...world.rules, maxDown: Number.POSITIVE_INFINITY }, world.random);
    if (!victim) return false;
    world.dc.hardware.killBmc(victim.address);
    this.deadBmcs.set(victim.address, victim);
    void world.reportBroken(victim, `${victim.serial} (${victim.address}) broke: UNHEALTHY, and its BMC does not answer: its repair commands will fail`);
    return true;
  }

  /** Whether the operator is yet to look at a failed entry (the routine cleanup leaves it alone). */
  awaits(index: number): boolean {
    return this.looking.has(index);
  }

  /** kintsugi's committed changes: a repair that failed is looked at by the operator a while later. */
  committed(changes: readonly RepairChange[]): void {
    for (const { entry, previous } of changes) {
      if (entry.status !== "failed" || previous?.status === "failed" || this.looking.has(entry.index)) continue;
      this.looking.add(entry.index);
      this.world.after(DEMO_TIMINGS.bmcReseatedAfterSeconds, () => void this.answer(entry.index, entry.address));
    }
  }

  private async answer(index: number, address: string): Promise<void> {
    const { world } = this;
    const machine = this.deadBmcs.get(address);
    try {
      const data = (await world.gql("query ($i: ID!) { repairEntry(index: $i) { failure } }", { i: String(index) })) as {
        repairEntry: { failure: string | null };
      };
      if (machine) {
        // Fixed by hand, and healthy in sabakan before its entry goes: deleted earlier, the next poll would repair it
        // again, and a success there would take the rack's allowance up before its kubelets stop.
        world.dc.hardware.reseatBmc(address);
        world.dc.hardware.fix(address);
        world.dc.sabakan.setState(machine.serial, "HEALTHY");
        this.deadBmcs.delete(address);
      }
      await world.gql("mutation ($i: ID!) { deleteRepairEntry(index: $i) { index } }", { i: String(index) });
      const fix = machine ? `reseated the BMC of ${machine.serial}, power-cycled it by hand and deleted` : "deleted";
      const next = machine ? "the machine is HEALTHY again" : "kintsugi's next poll repairs it again";
      world.tell(
        "operator",
        `read why #${index} ${address} failed (kintsugi repair-queue list: ${data.repairEntry.failure ?? "unknown"}), ${fix} the failed entry (kintsugi repair-queue delete ${index}): ${next}`,
      );
    } catch (err) {
      if (!world.stopped()) world.tell("operator", `could not look at failed entry #${index}: ${(err as Error).message}`);
    } finally {
      this.looking.delete(index);
    }
  }
}
