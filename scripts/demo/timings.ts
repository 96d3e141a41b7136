/**
 * Every interval of the demo, in seconds of the scenario's clock: the one place its pace is set. `--fast` and the
 * tests run the same scenario at a smaller scale (every interval multiplied by it), so what happens, in what order,
 * stays the same: only the clock runs faster.
 */
export const DEMO_TIMINGS = {
  /** kintsugi's scheduled sabakan poll (a cron schedule: at least one second apart, whatever the scale). */
  sabakanPollSeconds: 10,
  /** kintsugi's repair runner pass. */
  runnerIntervalSeconds: 2,
  /** The repair's first step, a reboot (which does not clear every fault). */
  rebootCommandSeconds: 1,
  /** How long a failed repair command waits before its one retry (`command_interval`). */
  commandIntervalSeconds: 1,
  /** How long the first step watches the machine before kintsugi moves on to the second. */
  rebootWatchSeconds: 10,
  /** The repair's second step, a power cycle (which clears every fault). */
  repairCommandSeconds: 1.5,
  /** How long a repair step watches the machine before it gives up. */
  watchSeconds: 20,
  /** How long a node may be NotReady before kintsugi's health check enqueues its machine. */
  nodeNotReadyTimeoutSeconds: 15,
  /**
   * The window of kintsugi's escalation: a machine with 2 repairs in it is held instead of repaired again. Long enough
   * for the flapping machine's two repairs and third break (about 70 s, up to 120 s when polls come late), short
   * enough that twice {@link coolDownSeconds} outlasts it.
   */
  escalationWindowSeconds: 150,
  /** The operator replaces the part of a machine kintsugi escalated, and releases its hold, this long after. */
  partReplacedAfterSeconds: 40,
  /** The operator lifts a disruption budget that refused a drain, and resets the back-off, this long after. */
  budgetLiftedAfterSeconds: 30,
  /** How often sabakan's state-setter looks at the hardware (it also reacts to a repair at once). */
  stateSetterSeconds: 1,
  /** A healthy machine breaks this often (when one may: see {@link pickMachineToBreak}). */
  breakEverySeconds: 8,
  /**
   * A repaired machine stays healthy at least this long: longer than a finished entry stays in the queue, and more
   * than half the escalation window (a machine's third repair comes at least twice this after its first, outside the
   * window), so that only the scenario's repeat offender is ever escalated; short enough that the 15 machines the
   * chaos may break keep one breaking every {@link breakEverySeconds} or so.
   */
  coolDownSeconds: 80,
  /** The operator deletes finished entries this often: until then their machines are "recently repaired". */
  cleanupEverySeconds: 30,
  /** The scenario repeats on this cycle: a status line, a rack-wide power cut, a flapping machine. */
  cycleSeconds: 300,
  /** When, within a cycle, the rack loses power. */
  powerCutAtSeconds: 60,
  /** How long the rack stays without power. */
  powerOutageSeconds: 90,
  /** When, within a cycle, the next repaired machine breaks again at once (kintsugi's "recently repaired" rule). */
  flapAtSeconds: 90,
  /**
   * The flapping machine is one whose entry was created at most this long before it breaks again: its third entry,
   * which kintsugi escalates, must fall within {@link escalationWindowSeconds} of its first, after two of the
   * operator's clean-ups, two polls and a repair. A machine whose repair took longer is passed over for the next.
   */
  flapEntryMaxAgeSeconds: 45,
  /** When, within a cycle, a node's kubelet stops while sabakan still sees its machine healthy (the health check). */
  nodeNotReadyAtSeconds: 20,
  /** When, within a cycle, a machine breaks whose pod a disruption budget keeps from being evicted. */
  drainRefusedAtSeconds: 40,
  /** When, within a cycle, two control planes fail together (one control plane at a time). */
  controlPlanesFailAtSeconds: 170,
  /**
   * When, within a cycle, a machine's BMC stops answering, so its repair command fails (kintsugi says why, and its
   * rack's pacing allowance drops back to one): a machine of the rack whose kubelets stop at the next cycle's
   * {@link nodeNotReadyAtSeconds}. The chaos leaves that rack alone from {@link failureRackQuietForSeconds} before
   * until that incident.
   */
  repairFailsAtSeconds: 220,
  /**
   * How long before the failed repair the chaos (and the control planes' incident) leaves its rack alone: the repairs
   * under way there end first, so none succeeds after the failure and takes the rack's allowance up again.
   */
  failureRackQuietForSeconds: 40,
  /** The operator reseats the BMC of the machine whose repair failed, and deletes its failed entry, this long after. */
  bmcReseatedAfterSeconds: 30,
  /** When, within a cycle, the admin changes a constraint (maximum-repair-queue-entries, and back the next cycle). */
  constraintChangeAtSeconds: 250,
} as const;

export type DemoTimings = typeof DEMO_TIMINGS;

/** The demo's pace on the wall clock: each interval of {@link DEMO_TIMINGS} times `scale`, in milliseconds. */
export interface WallTimings {
  readonly scale: number;
  ms(name: keyof DemoTimings): number;
  /** The same interval in seconds, for kintsugi's config and the repair command. */
  seconds(name: keyof DemoTimings): number;
  /** kintsugi's sabakan schedule: a cron expression with a seconds field, at least one second apart. */
  readonly sabakanSchedule: string;
}

/** The scales `--scale` accepts: from 1/1000 (a 30-minute scenario in under 2 s) to 10 (a slow-motion demo). */
export const MIN_SCALE = 0.001;
export const MAX_SCALE = 10;

/** {@link DEMO_TIMINGS} at `scale` (1 = the real demo, 0.2 = `--fast`). */
export function wallTimings(scale: number): WallTimings {
  if (!Number.isFinite(scale) || scale < MIN_SCALE || scale > MAX_SCALE)
    throw new Error(`scale must be a number from ${MIN_SCALE} to ${MAX_SCALE}, got ${scale}`);
  const seconds = (name: keyof DemoTimings) => DEMO_TIMINGS[name] * scale;
  const pollSeconds = Math.max(1, Math.round(seconds("sabakanPollSeconds")));
  return {
    scale,
    seconds,
    ms: (name) => seconds(name) * 1000,
    sabakanSchedule: pollSeconds >= 60 ? `0 */${Math.round(pollSeconds / 60)} * * * *` : `*/${pollSeconds} * * * * *`,
  };
}
