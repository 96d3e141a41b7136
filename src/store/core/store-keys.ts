import { prefixRange, type KeyRange } from "../kv/kv-driver.js";

/** Numbers are zero-padded to 16 digits (every safe integer), so key byte order is numeric order. */
const DIGITS = 16;

/** What a key under the prefix stands for (keys written by something else parse as `other`). */
export type ParsedKey =
  | { readonly kind: "schema" }
  | { readonly kind: "queue" }
  | { readonly kind: "entry"; readonly index: number }
  | { readonly kind: "history"; readonly index: number; readonly sequence: number }
  | { readonly kind: "setting"; readonly name: string }
  | { readonly kind: "outcomes-head" }
  | { readonly kind: "outcome"; readonly sequence: number }
  | { readonly kind: "generations-head" }
  | { readonly kind: "generation"; readonly sequence: number }
  | { readonly kind: "holds-head" }
  | { readonly kind: "hold"; readonly address: string }
  | { readonly kind: "finished"; readonly sequence: number }
  | { readonly kind: "records-head" }
  | { readonly kind: "record"; readonly record: RecordKey }
  | { readonly kind: "other" };

/** What a replay record's key tells without its value. */
export interface RecordKey {
  readonly area: RecordArea;
  readonly sequence: number;
  readonly time: number;
  readonly bytes: number;
}

/** The two kinds of replay records (src/store/poll-record-schema.ts): a poll's intake, a health check's remediation. */
export const RECORD_AREAS = ["intake", "health-check"] as const;
export type RecordArea = (typeof RECORD_AREAS)[number];

/** `prefix` must end with "/" (as sabakan's `/sabakan/`), so that no other prefix shares its keys. */
class StorePrefix {
  constructor(readonly prefix: string) {
    if (!prefix.endsWith("/") || prefix.length < 2) throw new Error(`etcd prefix must be non-empty and end with "/", got ${JSON.stringify(prefix)}`);
  }
}

const SINGLE_KEYS = ["schema", "queue", "outcomes-head", "generations-head", "holds-head", "records-head"] as const;

function pad(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`cannot make a key of ${n}: not a safe integer >= 0`);
  return String(n).padStart(DIGITS, "0");
}

function number(text: string | undefined): number | null {
  return text !== undefined && text.length === DIGITS && /^[0-9]+$/.test(text) ? Number(text) : null;
}

/**
 * The key layout of one kintsugi store, the same on both drivers (SQLite's under `/kintsugi/`). Heads are compared and
 * advanced by every write of their area (the holds head says what the last hold write changed); the copy marker is
 * present while `kintsugi db copy` writes (a store is not opened then); the election keys are one per replica.
 */
export class StoreKeys extends StorePrefix {
  readonly schema = `${this.prefix}schema`;
  readonly queue = `${this.prefix}queue`;
  readonly outcomesHead = `${this.prefix}outcomes-head`;
  readonly generationsHead = `${this.prefix}generations-head`;
  readonly holdsHead = `${this.prefix}holds-head`;
  readonly recordsHead = `${this.prefix}records-head`;
  readonly copyMarker = `${this.prefix}copy-in-progress`;
  readonly all = prefixRange(this.prefix);
  /** The only keys the mirror does not hold. */
  readonly allHistory = prefixRange(`${this.prefix}history/`);
  readonly allGenerations = prefixRange(`${this.prefix}generations/`);
  readonly allOutcomes = prefixRange(`${this.prefix}outcomes/`);
  readonly allEntries = prefixRange(`${this.prefix}entries/`);
  readonly allSettings = prefixRange(`${this.prefix}settings/`);
  readonly allHolds = prefixRange(`${this.prefix}holds/`);
  readonly allFinished = prefixRange(`${this.prefix}finished/`);
  readonly allLeaders = prefixRange(`${this.prefix}leader/`);
  /** `records/<kind>/<sequence>/<time>/<bytes>`: pruning and paging read no value. */
  readonly allRecords = prefixRange(`${this.prefix}records/`);

  record(r: RecordKey): string {
    return `${this.prefix}records/${r.area}/${pad(r.sequence)}/${pad(r.time)}/${pad(r.bytes)}`;
  }

  recordsOf(area: RecordArea): KeyRange {
    return prefixRange(`${this.prefix}records/${area}/`);
  }

  /** The records of one kind with sequences below `sequence`. */
  recordsBelow(area: RecordArea, sequence: number): KeyRange {
    return { start: `${this.prefix}records/${area}/`, end: `${this.prefix}records/${area}/${pad(sequence)}` };
  }

  entry(index: number): string {
    return `${this.prefix}entries/${pad(index)}`;
  }

  history(index: number, sequence: number): string {
    return `${this.prefix}history/${pad(index)}/${pad(sequence)}`;
  }

  historyOf(index: number): KeyRange {
    return prefixRange(`${this.prefix}history/${pad(index)}/`);
  }

  setting(name: string): string {
    return `${this.prefix}settings/${name}`;
  }

  /** The hold of one machine; `address` is canonical (no "/"). */
  hold(address: string): string {
    return `${this.prefix}holds/${address}`;
  }

  outcome(sequence: number): string {
    return `${this.prefix}outcomes/${pad(sequence)}`;
  }

  /** The outcomes with sequences from `from` up to and including `to`. */
  outcomes(from: number, to: number): KeyRange {
    return { start: this.outcome(from), end: this.outcome(to + 1) };
  }

  finished(sequence: number): string {
    return `${this.prefix}finished/${pad(sequence)}`;
  }

  generation(sequence: number): string {
    return `${this.prefix}generations/${pad(sequence)}`;
  }

  /** The generation records with sequences from `from` up to and including `to`. */
  generations(from: number, to: number): KeyRange {
    return { start: this.generation(from), end: this.generation(to + 1) };
  }

  parse(key: string): ParsedKey {
    if (!key.startsWith(this.prefix)) return { kind: "other" };
    const rest = key.slice(this.prefix.length);
    if ((SINGLE_KEYS as readonly string[]).includes(rest)) return { kind: rest as (typeof SINGLE_KEYS)[number] };
    if (rest.startsWith("records/")) return this.parseRecord(rest.split("/"));
    if (rest.startsWith("holds/")) {
      const address = rest.slice("holds/".length);
      return address === "" || address.includes("/") ? { kind: "other" } : { kind: "hold", address };
    }
    const [area, first, second, ...more] = rest.split("/");
    if (area === "settings" && rest.length > "settings/".length) return { kind: "setting", name: rest.slice("settings/".length) };
    const a = number(first);
    if (a === null) return { kind: "other" };
    if (second === undefined) {
      if (area === "entries") return { kind: "entry", index: a };
      if (area === "outcomes") return { kind: "outcome", sequence: a };
      if (area === "generations") return { kind: "generation", sequence: a };
      if (area === "finished") return { kind: "finished", sequence: a };
      return { kind: "other" };
    }
    const b = number(second);
    if (area === "history" && b !== null && more.length === 0) return { kind: "history", index: a, sequence: b };
    return { kind: "other" };
  }

  private parseRecord([, area, ...numbers]: readonly string[]): ParsedKey {
    // Safe integers only: a key another process wrote with a larger sequence must not make every write's next key unwritable.
    const [sequence, time, bytes] = numbers.map((text) => {
      const n = number(text);
      return n !== null && Number.isSafeInteger(n) ? n : null;
    });
    if (!RECORD_AREAS.includes(area as RecordArea) || numbers.length !== 3 || sequence == null || time == null || bytes == null) return { kind: "other" };
    return { kind: "record", record: { area: area as RecordArea, sequence, time, bytes } };
  }
}
