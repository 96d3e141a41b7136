import { parseAddress } from "../shared/address.js";
import type { Constraints } from "../shared/constraints.js";
import { describeHold, type MachineHold } from "../holds/machine-holds.js";
import { findRepairOperation, type RepairConfig } from "../queue/repair-config.js";
import type { DecidedRepairEntry, RepairEntry } from "../queue/repair-entry.js";
import type { FinishedRepair } from "../queue/finished-repair.js";
import type { EscalationReleases } from "../escalation/escalation-releases.js";
import { decideEscalation, type EscalationConfig } from "../escalation/repair-escalation.js";
import type { NodeStanding, SabakanMachine } from "../sabakan/sabakan-machine.js";
import { withinRebootWait } from "../shared/node-reboot.js";
import type { SkipKind } from "./skip-kinds.js";

/** The `source` of entries sabakan-triggered repair enqueues, and the actor of their history records. */
export const AUTO_REPAIR_SOURCE = "sabakan";

/** A machine the trigger left alone this round, and why. */
export interface SkippedMachine {
  readonly serial: string;
  readonly address: string | null;
  readonly state: string;
  readonly reason: string;
  /** The reason as one of a fixed set: a hold (the machine waits for a limit or a reboot) or a plain skip. */
  readonly kind: SkipKind;
  /** The machine's rack in sabakan; null in records kept before kintsugi kept racks. */
  readonly rack: number | null;
}

/** The all-or-nothing cap that stopped a round: persisting entries plus candidates exceeded the limit. */
export interface IntakeShortCircuit {
  readonly existingEntries: number;
  readonly candidates: number;
  readonly limit: number;
}

/** A machine escalation puts on hold (`repair.escalation` without an operation): the caller stores the hold. */
export interface EscalationHold {
  readonly address: string;
  readonly serial: string | null;
  /** "repaired N times in W". */
  readonly reason: string;
}

/** What one round of sabakan-triggered repair decides. */
export interface IntakeDecision {
  readonly machinesSeen: number;
  /** In sabakan's order, each with the reason its history records (see intakeEntryReason). */
  readonly enqueue: readonly DecidedRepairEntry[];
  readonly skipped: readonly SkippedMachine[];
  readonly shortCircuit: IntakeShortCircuit | null;
  /** The holds escalation asks for (empty without `repair.escalation`). */
  readonly escalationHolds: readonly EscalationHold[];
}

/** What escalation needs besides the queue (see decideEscalation): its config, the finished repairs, the clock, the procedures. */
export interface EscalationInput {
  readonly config: EscalationConfig;
  /** The store's finished-repair records (the queue is the input's `entries`). */
  readonly finished: readonly FinishedRepair[];
  /** When operators last released each machine (see EscalationReleases); absent: never. */
  readonly releases?: EscalationReleases;
  readonly now: number;
  /** The procedures, to tell whether the machine's type has the escalation operation. */
  readonly repair: RepairConfig;
}

export interface IntakeInput {
  /** In sabakan's order (by serial). */
  readonly machines: readonly SabakanMachine[];
  /** Every entry that persists in the queue: any status, finished or not, deleted but not yet dequeued. */
  readonly entries: readonly RepairEntry[];
  /** The standing of each address in Kubernetes; an absent address is not a node. */
  readonly nodes: ReadonlyMap<string, NodeStanding>;
  readonly constraints: Pick<Constraints, "maximumRepairQueueEntries" | "waitSecondsToRepairRebooting" | "maximumUnhealthyMachinesPerRack">;
  /** The holds in force, by canonical address (see activeHolds); absent: none. */
  readonly holds?: ReadonlyMap<string, MachineHold>;
  /** `repair.escalation`; absent: none (CKE). */
  readonly escalation?: EscalationInput;
}

/**
 * CKE's sabakan-triggered repair (docs/semantics/sabakan-trigger.md), in its order:
 * 1. `recent` = the addresses of every persisting entry;
 * 2. per machine: no IPv4 -> skip; kintsugi: a first IPv4 that is not an IP address (`-rf`, control characters,
 *    "") -> skip, so it never reaches a command; the address is compared and enqueued in canonical form
 *    (`::ffff:10.0.0.3` is 10.0.0.3); address in `recent` -> skip; kintsugi: a held machine -> skip; UNREACHABLE for less than
 *    `wait-seconds-to-repair-rebooting` (strict) while rebooting or not a node -> skip;
 *    kintsugi: a second machine with an address already kept this round -> skip;
 * 3. kintsugi: more machines of one rack in the answer than `maximum-unhealthy-machines-per-rack` (0 = off) -> none
 *    of that rack's machines; kintsugi: a repeat offender (decideEscalation) -> skip as `escalated`, and either kept
 *    with the escalation operation (skipped when its type has no such operation) or held;
 * 4. persisting entries + kept machines (kintsugi: and repeat offenders to hold) > `maximum-repair-queue-entries` ->
 *    enqueue nothing (all or nothing), and kintsugi: hold no repeat offender either (skipped as `queue_limit`: the
 *    round acts on nothing, as CKE's Repairer returns nothing);
 * 5. otherwise enqueue every kept machine: address = first IPv4 (canonical), type = BMC type, operation = lower-case state.
 */
export function decideIntake(input: IntakeInput): IntakeDecision {
  const { constraints } = input;
  const recent = new Set(input.entries.map((e) => e.address));
  const skipped: SkippedMachine[] = [];
  const skip = (m: SabakanMachine, kind: SkipKind, reason: string, address: string | null) =>
    skipped.push({ serial: m.serial, address, state: m.state, reason, kind, rack: m.rack });

  const perRack = new Map<number, number>();
  for (const m of input.machines) perRack.set(m.rack, (perRack.get(m.rack) ?? 0) + 1);
  const rackLimit = constraints.maximumUnhealthyMachinesPerRack;

  // `escalated`: why the machine gets the escalation operation; it is skipped as `escalated` once it is enqueued.
  const kept: Array<{ readonly machine: SabakanMachine; readonly address: string; readonly operation: string; readonly escalated: string | null }> = [];
  const escalationHolds: EscalationHold[] = [];
  const toHold: Array<{ readonly machine: SabakanMachine; readonly address: string; readonly reason: string }> = [];
  const keptAddresses = new Set<string>();
  for (const m of input.machines) {
    const first = m.ipv4[0];
    if (first === undefined) {
      skip(m, "no_address", "no address", null);
      continue;
    }
    const parsed = parseAddress(first);
    if (!parsed.ok) {
      skip(m, "invalid_address", `${parsed.message} in spec.ipv4[0]`, null);
      continue;
    }
    const address = parsed.address;
    if (recent.has(address)) {
      skip(m, "recently_repaired", "recently repaired", address);
      continue;
    }
    const hold = input.holds?.get(address);
    if (hold) {
      skip(m, "held", describeHold(hold), address);
      continue;
    }
    if (m.state === "UNREACHABLE" && withinRebootWait(m.durationSeconds, constraints.waitSecondsToRepairRebooting)) {
      const standing = input.nodes.get(address) ?? "not-a-node";
      if (standing === "rebooting") {
        skip(m, "rebooting", "rebooting", address);
        continue;
      }
      if (standing === "not-a-node") {
        skip(m, "out_of_cluster", "out of cluster, may be rebooting", address);
        continue;
      }
    }
    if (keptAddresses.has(address)) {
      skip(m, "duplicate_address", `another machine with address ${address} is already enqueued this round`, address);
      continue;
    }
    const inRack = perRack.get(m.rack) ?? 0;
    if (rackLimit > 0 && inRack > rackLimit) {
      skip(m, "rack_limit", rackLimitReason(m.rack, inRack), address);
      continue;
    }
    let operation = m.state.toLowerCase();
    let escalated: string | null = null;
    const escalation =
      input.escalation &&
      decideEscalation(
        input.escalation.config,
        address,
        { entries: input.entries, finished: input.escalation.finished, ...(input.escalation.releases && { releases: input.escalation.releases }) },
        input.escalation.now,
      );
    if (escalation && input.escalation) {
      if (escalation.kind === "hold") {
        // Skipped once the round is known to act: a round the cap stops holds nobody (see below).
        toHold.push({ machine: m, address, reason: escalation.reason });
        escalationHolds.push({ address, serial: m.serial, reason: escalation.holdReason });
        continue;
      }
      const lookup = findRepairOperation(input.escalation.repair, m.bmcType, escalation.operation);
      if (!lookup.ok) {
        skip(m, "escalated", `${escalation.reason}, but not enqueued: ${lookup.message}`, address);
        continue;
      }
      escalated = escalation.reason;
      operation = escalation.operation;
    }
    kept.push({ machine: m, address, operation, escalated });
    keptAddresses.add(address);
  }

  const limit = constraints.maximumRepairQueueEntries;
  // Every machine the round would act on is a candidate, a repeat offender to hold included (CKE's Repairer counts
  // each machine it would enqueue, and without escalation it would enqueue these).
  const candidates = kept.length + toHold.length;
  if (candidates > 0 && input.entries.length + candidates > limit) {
    // A round the cap stops acts on nothing: no repeat offender is held by it either (the next round decides again).
    for (const k of kept) skip(k.machine, "queue_limit", "too many repair requests", k.address);
    for (const h of toHold) skip(h.machine, "queue_limit", "too many repair requests", h.address);
    return {
      machinesSeen: input.machines.length,
      enqueue: [],
      skipped: sortBySerial(skipped),
      shortCircuit: { existingEntries: input.entries.length, candidates, limit },
      escalationHolds: [],
    };
  }
  for (const h of toHold) skip(h.machine, "escalated", h.reason, h.address);
  for (const k of kept) if (k.escalated !== null) skip(k.machine, "escalated", k.escalated, k.address);
  const enqueue = kept.map(({ machine: m, address, operation, escalated }) => ({
    address,
    machineType: m.bmcType,
    operation,
    serial: m.serial,
    source: AUTO_REPAIR_SOURCE,
    reason: intakeEntryReason(m, escalated),
  }));
  return { machinesSeen: input.machines.length, enqueue, skipped: sortBySerial(skipped), shortCircuit: null, escalationHolds };
}

/**
 * The reason of the `created` history record of an entry the trigger enqueues: the machine's state and for how long,
 * and why it got the escalation operation (`escalated`, null when it did not).
 */
export function intakeEntryReason(machine: Pick<SabakanMachine, "serial" | "state" | "durationSeconds">, escalated: string | null): string {
  const why = escalated === null ? "" : `; escalated: ${escalated}`;
  return `enqueued by sabakan-triggered repair: machine ${machine.serial} is ${machine.state} (for ${Math.round(machine.durationSeconds)} s)${why}`;
}

/** Why `maximum-unhealthy-machines-per-rack` holds a machine back: its rack has `count` unhealthy machines. */
export function rackLimitReason(rack: number, count: number): string {
  return `rack ${rack}: ${count} unhealthy machines, likely an infrastructure failure`;
}

/** Whether `reason` is one {@link rackLimitReason} wrote. */
export function isRackLimitReason(reason: string): boolean {
  return /^rack -?\d+: \d+ unhealthy machines, likely an infrastructure failure$/.test(reason);
}

function sortBySerial(skipped: SkippedMachine[]): SkippedMachine[] {
  return skipped.sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));
}
