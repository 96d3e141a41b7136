import type { RepairEntryEventPayload } from "../domain/alerts/alert-messages.js";

/** How many entries' creators are remembered by default; the oldest are forgotten first. */
export const REMEMBERED_CREATORS = 10_000;
/** The longest creator name kept: kintsugi's actors (token names, `health-check:NAME`) are far shorter. */
export const CREATOR_CHARS = 200;

/**
 * Who created each entry the bridge saw created (the actor of its CREATED event), so that the alerts of its repair
 * can name who requested it. Bounded whatever the server sends: at most `limit` entries (the oldest forgotten
 * first, and an entry forgotten once it is dequeued), each name cut to {@link CREATOR_CHARS}.
 */
export class EntryCreators {
  private readonly creators = new Map<string, string>();

  constructor(private readonly limit = REMEMBERED_CREATORS) {}

  /** Takes one event of the entry: returns who created the entry, or null when that was not seen. */
  requesterOf(event: RepairEntryEventPayload): string | null {
    const { index } = event.entry;
    if (event.kind === "CREATED") {
      // A copy, not a slice: V8 keeps the whole string a slice was cut from alive.
      this.creators.set(index, [...event.record.actor.slice(0, CREATOR_CHARS)].join(""));
      if (this.creators.size > this.limit) this.creators.delete(this.creators.keys().next().value as string);
    }
    const creator = this.creators.get(index) ?? null;
    if (event.kind === "DEQUEUED") this.creators.delete(index);
    return creator;
  }

  /** How many entries' creators are remembered. */
  get size(): number {
    return this.creators.size;
  }
}
