// What one unit is worth in milliseconds; Go accepts both spellings of the micro sign.
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  "\u00b5s": 1e-3,
  "\u03bcs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

// Longest units first, so "ms" is never read as "m" followed by a stray "s".
const PART = /(\d*(?:\.\d*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;

/**
 * Reads a duration as Go's `time.ParseDuration` writes it (etcdutil's `timeout: "2s"`): an optional sign, then
 * one or more decimal numbers each with a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), e.g. `"1m30s"`, `"1.5s"`,
 * `"300ms"`; `"0"` alone needs no unit. Returns milliseconds, or null when the text is not such a duration.
 */
export function parseGoDuration(text: string): number | null {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < rest.length) {
    const at = PART.lastIndex;
    const match = PART.exec(rest);
    if (!match || match.index !== at) return null;
    const [, number, unit] = match as unknown as [string, string, string];
    if (!/\d/.test(number)) return null;
    total += Number(number) * (UNIT_MS[unit] as number);
  }
  return sign * total;
}
