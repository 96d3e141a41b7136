import { GraphQLScalarType, Kind } from "graphql";

/**
 * sabakan's DateTime: RFC 3339 in UTC. Internally a time is milliseconds since the epoch; whole seconds are
 * written without a fraction, as Go writes them.
 */
export const DateTimeScalar = new GraphQLScalarType<number, string>({
  name: "DateTime",
  serialize(value) {
    // Times forwarded from sabakan arrive as sabakan wrote them (nanoseconds included) and pass through unchanged.
    if (typeof value === "string") return value;
    if (typeof value !== "number") throw new TypeError(`DateTime cannot represent ${String(value)}`);
    return formatDateTime(value);
  },
  parseValue(value) {
    return parseDateTime(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError("DateTime must be an RFC 3339 string");
    return parseDateTime(ast.value);
  },
});

// Lists repeat the same times poll after poll (an entry's times change only when it moves): formatting each once
// takes a visible share of a list query. Bounded: cleared whole when full.
const FORMATTED_LIMIT = 10_000;
const formatted = new Map<number, string>();

function formatDateTime(ms: number): string {
  let text = formatted.get(ms);
  if (text === undefined) {
    if (formatted.size >= FORMATTED_LIMIT) formatted.clear();
    text = new Date(ms).toISOString().replace(".000Z", "Z");
    formatted.set(ms, text);
  }
  return text;
}

function parseDateTime(value: unknown): number {
  const ms = typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new TypeError(`DateTime must be an RFC 3339 string, got ${JSON.stringify(value)}`);
  return ms;
}

/**
 * sabakan's IPAddress. Any string is accepted here: the field that takes an address checks it and answers with
 * INVALID_ADDRESS, a clearer error than a failed variable coercion.
 */
export const IPAddressScalar = new GraphQLScalarType<string, string>({
  name: "IPAddress",
  serialize(value) {
    if (typeof value !== "string") throw new TypeError(`IPAddress cannot represent ${String(value)}`);
    return value;
  },
  parseValue(value) {
    if (typeof value !== "string") throw new TypeError(`IPAddress must be a string, got ${JSON.stringify(value)}`);
    return value;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError("IPAddress must be a string");
    return ast.value;
  },
});
