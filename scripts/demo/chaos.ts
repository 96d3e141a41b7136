/** One machine of the demo as the chaos sees it. */
export interface ChaosMachine {
  readonly serial: string;
  readonly rack: number;
  readonly address: string;
  /** sabakan's state. */
  readonly state: string;
  /** Whether the hardware works (false also while a break is being reported). */
  readonly works: boolean;
  /** An entry for its address is in kintsugi's queue: kintsugi would skip it as "recently repaired". */
  readonly inQueue: boolean;
  /** Its entries are all finished and none is being deleted: it will stay "recently repaired" for a while. */
  readonly lingers: boolean;
  /** When its last repair finished, in scenario seconds; null if never repaired. */
  readonly repairedAt: number | null;
  /** A control plane of the generated cluster: only the control-plane incident breaks one. */
  readonly controlPlane: boolean;
}

/** What keeps the chaos from wearing the demo down. */
export interface ChaosRules {
  /** The rack whose power the scenario cuts: the chaos leaves its machines alone. */
  readonly powerCutRack: number;
  /** kintsugi's maximum-unhealthy-machines-per-rack: one fault more would look like a rack-wide failure. */
  readonly rackLimit: number;
  /** At most this many machines are down at once (outside the power-cut rack). */
  readonly maxDown: number;
  /** A repaired machine stays healthy at least this long. */
  readonly coolDownSeconds: number;
}

const isDown = (m: ChaosMachine) => m.state !== "HEALTHY" || !m.works;

/** How many machines of each rack are down. */
function downPerRack(machines: readonly ChaosMachine[]): Map<number, number> {
  const down = new Map<number, number>();
  for (const m of machines) if (isDown(m)) down.set(m.rack, (down.get(m.rack) ?? 0) + 1);
  return down;
}

/**
 * Healthy, outside the power-cut rack, no control plane (one down holds back every other control plane's repair, so
 * they break only together, in their own incident), in a rack where one more fault stays within kintsugi's per-rack
 * limit.
 */
function mayFail(m: ChaosMachine, rules: ChaosRules, down: ReadonlyMap<number, number>): boolean {
  return m.rack !== rules.powerCutRack && !m.controlPlane && !isDown(m) && (down.get(m.rack) ?? 0) < rules.rackLimit;
}

/**
 * The machines the chaos may break now: healthy, outside the power-cut rack, without an entry in kintsugi's queue
 * (else kintsugi would rightly skip it as recently repaired and the demo would wear down to a queue of skips),
 * repaired at least `coolDownSeconds` ago, in a rack where one more fault stays within the per-rack limit, outside
 * `avoidRacks` (a rack kept quiet for an incident); none when `maxDown` machines are down already.
 */
export function machinesThatMayBreak(
  machines: readonly ChaosMachine[],
  now: number,
  rules: ChaosRules,
  avoidRacks: ReadonlySet<number> = new Set(),
): ChaosMachine[] {
  const down = downPerRack(machines);
  const downOutsideCut = machines.filter((m) => m.rack !== rules.powerCutRack && isDown(m)).length;
  if (downOutsideCut >= rules.maxDown) return [];
  return machines.filter(
    (m) => mayFail(m, rules, down) && !avoidRacks.has(m.rack) && !m.inQueue && (m.repairedAt === null || now - m.repairedAt >= rules.coolDownSeconds),
  );
}

/**
 * The machine the chaos breaks now (see {@link machinesThatMayBreak}), or null when none may break. `random` picks
 * among them, among those of `preferRacks` when there are any.
 */
export function pickMachineToBreak(
  machines: readonly ChaosMachine[],
  now: number,
  rules: ChaosRules,
  random: () => number,
  preferRacks: ReadonlySet<number> = new Set(),
  avoidRacks: ReadonlySet<number> = new Set(),
): ChaosMachine | null {
  const all = machinesThatMayBreak(machines, now, rules, avoidRacks);
  const preferred = all.filter((m) => preferRacks.has(m.rack));
  const candidates = preferred.length > 0 ? preferred : all;
  if (candidates.length === 0) return null;
  return candidates[Math.min(candidates.length - 1, Math.floor(random() * candidates.length))] ?? null;
}

/**
 * The machine that flaps: one just repaired (`justRepaired`, newest last) that is healthy again in sabakan and whose
 * finished entry stays in the queue (no deletion requested yet), so that breaking it now shows kintsugi's "recently
 * repaired" rule. Null when none is (yet): the scenario asks again after the next repair.
 */
export function pickMachineToFlap(machines: readonly ChaosMachine[], justRepaired: readonly string[], rules: ChaosRules): ChaosMachine | null {
  const down = downPerRack(machines);
  for (const serial of [...justRepaired].reverse()) {
    const m = machines.find((x) => x.serial === serial);
    if (m && m.lingers && mayFail(m, rules, down)) return m;
  }
  return null;
}
