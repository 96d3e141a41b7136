import type { z } from "../support/zod.js";

/** The definition of a zod schema, as far as walking a config's keys needs it. */
interface SchemaDef {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly in?: z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

// Wrappers that hold the schema of the same value: a default, an optional or nullable value, a transform's input.
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

function unwrap(schema: z.ZodType): SchemaDef {
  let def = defOf(schema);
  for (let depth = 0; depth < 20; depth++) {
    if (WRAPPERS.has(def.type) && def.innerType) def = defOf(def.innerType);
    else if (def.type === "pipe" && def.in) def = defOf(def.in);
    else break;
  }
  return def;
}

/**
 * The keys the mapping at `path` (as zod reports it: keys and list positions) may have under `schema`; empty when
 * the path does not lead to a mapping of known keys (a union, a record of any keys).
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let def = unwrap(schema);
  for (const segment of path) {
    if (typeof segment === "number" && def.type === "array" && def.element) def = unwrap(def.element);
    else if (typeof segment === "string" && def.type === "object" && def.shape?.[segment]) def = unwrap(def.shape[segment]);
    else return [];
  }
  return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

/** The optimal string alignment distance of `a` and `b`: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number) => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The longest key compared: a config's keys are short, and a long one is no misspelling of them. */
const MAX_COMPARED = 64;

/**
 * The known key `key` is most likely a misspelling of: the one it differs from only by case or `-` for `_`, else the
 * nearest by {@link editDistance} (of two as near, the one sharing the longer prefix) when it is within a third of the
 * key's length or 2 edits (`intervl` for `interval`); null when none is that near.
 */
export function nearestKey(key: string, known: readonly string[]): string | null {
  if (key.length > MAX_COMPARED) return null;
  const normal = (text: string) => text.toLowerCase().replace(/-/g, "_");
  const same = known.find((k) => normal(k) === normal(key));
  if (same !== undefined) return same;
  // Ties go to the longer common prefix: `success_command_timeout_seconds` is CKE's `success_command_timeout`.
  const prefix = (candidate: string) => {
    let n = 0;
    while (n < candidate.length && candidate[n] === key[n]) n++;
    return n;
  };
  let best: { readonly key: string; readonly distance: number; readonly prefix: number } | null = null;
  for (const candidate of known) {
    const next = { key: candidate, distance: editDistance(key, candidate), prefix: prefix(candidate) };
    if (best === null || next.distance < best.distance || (next.distance === best.distance && next.prefix > best.prefix)) best = next;
  }
  return best !== null && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.key : null;
}

/** `unknown key`, with the nearest known key when there is one: `unknown key (did you mean max_concurrent_repairs?)`. */
export function unknownKeyMessage(key: string, known: readonly string[], base = "unknown key"): string {
  const nearest = nearestKey(key, known);
  return nearest === null ? base : `${base} (did you mean ${nearest}?)`;
}
