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
    return new Date(value).toISOString().replace(".000Z", "Z");
  },
  parseValue(value) {
    return parseDateTime(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new TypeError("DateTime must be an RFC 3339 string");
    return parseDateTime(ast.value);
  },
});

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
