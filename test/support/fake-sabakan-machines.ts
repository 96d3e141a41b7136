// The in-memory machines of the test sabakan and sabakan's rules over them: the searchMachines match
// (cybozu-go/sabakan gql/match.go), the state transitions, and the wire formats of DateTime and Float.

export const MACHINE_STATES = ["UNINITIALIZED", "HEALTHY", "UNHEALTHY", "UNREACHABLE", "UPDATING", "RETIRING", "RETIRED"] as const;
export type MachineState = (typeof MACHINE_STATES)[number];

/**
 * sabakan's permitted transitions: `permittedTransitions` in cybozu-go/sabakan's machines.go (v3.1.9), the table that
 * gates `setMachineState` and `sabactl machines set-state`. docs/lifecycle.md's "Transition constraints" is stricter
 * than the code (it says an Unhealthy machine "cannot return to Healthy directly"); the code is what answers, so this
 * follows the code: UNHEALTHY and UNREACHABLE may go to each other, to HEALTHY and to UPDATING. A transition to the
 * current state is a no-op there (`SetState` returns nil before looking at the table) and keeps the timestamp.
 * Retiring -> Retired also needs the disk keys gone (ENCRYPTION_KEY_EXISTS); the fake holds no keys.
 */
export const PERMITTED_TRANSITIONS: Readonly<Record<MachineState, readonly MachineState[]>> = {
  UNINITIALIZED: ["HEALTHY", "RETIRING"],
  HEALTHY: ["UNHEALTHY", "UNREACHABLE", "UPDATING", "RETIRING"],
  UNHEALTHY: ["HEALTHY", "UNREACHABLE", "UPDATING", "RETIRING"],
  UNREACHABLE: ["HEALTHY", "UNHEALTHY", "UPDATING", "RETIRING"],
  UPDATING: ["UNINITIALIZED"],
  RETIRING: ["RETIRED"],
  RETIRED: ["UNINITIALIZED"],
};

/** sabakan's refusal of a forbidden transition: `SetStateErrorFormat` in machines.go, with its lower-case state names. */
export function forbiddenTransitionMessage(from: MachineState, to: MachineState): string {
  return `transition from [ ${from.toLowerCase()} ] to [ ${to.toLowerCase()} ] is forbidden`;
}

/** A point in time with Go's nanosecond precision: whole milliseconds plus 0..999999 nanoseconds. */
export interface Instant {
  readonly ms: number;
  readonly ns: number;
}

/** A time given by a test: epoch milliseconds or an RFC 3339 string (up to 9 fractional digits kept). */
export type TimeInput = number | string;

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i;

export function toInstant(t: TimeInput): Instant {
  if (typeof t === "number") {
    const ms = Math.floor(t);
    return { ms, ns: Math.round((t - ms) * 1e6) };
  }
  const m = RFC3339.exec(t);
  const base = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(base)) throw new Error(`not an RFC 3339 time: ${t}`);
  const digits = (m[2] ?? "").padEnd(9, "0");
  return { ms: base + Number(digits.slice(0, 3)), ns: Number(digits.slice(3)) };
}

/** Go's `time.RFC3339Nano` in UTC, as gqlgen's MarshalTime writes it: trailing zeros of the fraction trimmed. */
export function formatRFC3339Nano(t: Instant): string {
  const iso = new Date(t.ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const fraction = `${iso.slice(20, 23)}${String(t.ns).padStart(6, "0")}`.replace(/0+$/, "");
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`;
}

/** Seconds from `t` to `nowMs` (sabakan: `now.Sub(timestamp).Seconds()`). */
export function secondsSince(t: Instant, nowMs: number): number {
  return (nowMs - t.ms) / 1000 - t.ns / 1e9;
}

/** Go's `fmt.Sprintf("%g", f)` (gqlgen's MarshalFloat): shortest digits, exponent form below 1e-4 and from 1e6 on. */
export function formatGoFloat(f: number): string {
  if (!Number.isFinite(f)) throw new Error(`gqlgen cannot marshal ${f}`);
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mantissa = "", exp = "0"] = f.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(f);
}

/** What a test gives {@link MachineStore.add}; everything but serial and rack has a default. */
export interface FakeMachineSpec {
  readonly serial: string;
  readonly rack: number;
  /** Default: one more than the highest index in the rack, from 1. */
  readonly indexInRack?: number;
  /** Default "cs". */
  readonly role?: string;
  /** Default ["10.<rack>.0.<indexInRack>"]. */
  readonly ipv4?: readonly string[];
  /** Default "IPMI-2.0". */
  readonly bmcType?: string;
  /** Default "10.<rack>.1.<indexInRack>". */
  readonly bmcIPv4?: string;
  /** Default none: sabakan then answers `labels: null`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Default now - 30 days. */
  readonly registerDate?: TimeInput;
  /** Default now + 5 * 365 days. */
  readonly retireDate?: TimeInput;
  /** Default HEALTHY. */
  readonly state?: MachineState;
  /** When the machine entered its state (sabakan's status.timestamp); default now. */
  readonly stateSince?: TimeInput;
}

/** One machine as the fake holds it. */
export interface FakeMachine {
  readonly serial: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly role: string;
  readonly ipv4: readonly string[];
  readonly bmcType: string;
  readonly bmcIPv4: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly registerDate: Instant;
  readonly retireDate: Instant;
  readonly state: MachineState;
  readonly stateSince: Instant;
}

/** sabakan's `MachineParams` input as graphql-js hands it to a resolver. */
export interface MachineParams {
  readonly labels?: ReadonlyArray<{ readonly name: string; readonly value: string }> | null;
  readonly racks?: readonly number[] | null;
  readonly roles?: readonly string[] | null;
  readonly states?: readonly string[] | null;
  readonly minDaysBeforeRetire?: number | null;
}

/** Whole days until retirement, truncated toward zero: `int(retireDate.Sub(now).Hours() / 24)`. */
export function daysBeforeRetire(m: FakeMachine, nowMs: number): number {
  return Math.trunc((m.retireDate.ms - nowMs + m.retireDate.ns / 1e6) / 3_600_000 / 24);
}

// gql/match.go: `base` is what an absent or empty list means (true for having, false for notHaving).
function inList<T>(list: readonly T[] | null | undefined, value: T, base: boolean): boolean {
  return list == null || list.length === 0 ? base : list.includes(value);
}

/** sabakan's searchMachines rule (gql/match.go matchMachine), field by field. */
export function matchMachine(m: FakeMachine, h: MachineParams | null | undefined, nh: MachineParams | null | undefined, nowMs: number): boolean {
  if (!(h?.labels ?? []).every((l) => Object.hasOwn(m.labels, l.name) && m.labels[l.name] === l.value)) return false;
  if ((nh?.labels ?? []).some((l) => Object.hasOwn(m.labels, l.name) && m.labels[l.name] === l.value)) return false;
  if (!inList(h?.racks, m.rack, true) || inList(nh?.racks, m.rack, false)) return false;
  if (!inList(h?.roles, m.role, true) || inList(nh?.roles, m.role, false)) return false;
  if (!inList(h?.states, m.state, true) || inList(nh?.states, m.state, false)) return false;
  const days = daysBeforeRetire(m, nowMs);
  if (h?.minDaysBeforeRetire != null && h.minDaysBeforeRetire > days) return false;
  if (nh?.minDaysBeforeRetire != null && nh.minDaysBeforeRetire <= days) return false;
  return true;
}

const DAY_MS = 86_400_000;

function checkState(state: string): MachineState {
  if (!(MACHINE_STATES as readonly string[]).includes(state)) throw new Error(`not a sabakan machine state: ${state}`);
  return state as MachineState;
}

/** The machines, by serial; `now` is the fake's clock. Test-side changes are not checked against the transitions. */
export class MachineStore {
  private readonly bySerial = new Map<string, FakeMachine>();

  constructor(private readonly now: () => number) {}

  add(spec: FakeMachineSpec): FakeMachine {
    if (this.bySerial.has(spec.serial)) throw new Error(`machine ${spec.serial} already exists`);
    const now = this.now();
    const inRack = [...this.bySerial.values()].filter((m) => m.rack === spec.rack).map((m) => m.indexInRack);
    const index = spec.indexInRack ?? Math.max(0, ...inRack) + 1;
    const machine: FakeMachine = {
      serial: spec.serial,
      rack: spec.rack,
      indexInRack: index,
      role: spec.role ?? "cs",
      ipv4: [...(spec.ipv4 ?? [`10.${spec.rack}.0.${index}`])],
      bmcType: spec.bmcType ?? "IPMI-2.0",
      bmcIPv4: spec.bmcIPv4 ?? `10.${spec.rack}.1.${index}`,
      labels: { ...(spec.labels ?? {}) },
      registerDate: toInstant(spec.registerDate ?? now - 30 * DAY_MS),
      retireDate: toInstant(spec.retireDate ?? now + 5 * 365 * DAY_MS),
      state: checkState(spec.state ?? "HEALTHY"),
      stateSince: toInstant(spec.stateSince ?? now),
    };
    this.bySerial.set(machine.serial, machine);
    return machine;
  }

  get(serial: string): FakeMachine | undefined {
    return this.bySerial.get(serial);
  }

  /** Every machine, sorted by serial (byte order, as Go compares strings). */
  all(): FakeMachine[] {
    return [...this.bySerial.values()].sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));
  }

  /** Sets the state and its timestamp (default now) without any transition check. */
  force(serial: string, state: MachineState, since?: TimeInput): FakeMachine {
    const m = this.bySerial.get(serial);
    if (!m) throw new Error(`no machine ${serial}`);
    const next = { ...m, state: checkState(state), stateSince: toInstant(since ?? this.now()) };
    this.bySerial.set(serial, next);
    return next;
  }

  /** sabakan's SetState: the same state changes nothing; otherwise the table decides. Returns an error message. */
  transition(
    serial: string,
    to: MachineState,
    nowMs: number,
  ): { machine: FakeMachine } | { error: "MACHINE_NOT_FOUND" | "INVALID_STATE_TRANSITION"; message: string } {
    const m = this.bySerial.get(serial);
    if (!m) return { error: "MACHINE_NOT_FOUND", message: "not found" };
    if (m.state === to) return { machine: m };
    if (!PERMITTED_TRANSITIONS[m.state].includes(to)) {
      return { error: "INVALID_STATE_TRANSITION", message: forbiddenTransitionMessage(m.state, to) };
    }
    return { machine: this.force(serial, to, nowMs) };
  }
}
