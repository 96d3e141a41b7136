// sabakan's GraphQL schema, read from sabakan's own schema file, made executable over the fake's machines with
// resolvers that answer as sabakan's gql/graph/schema.resolvers.go does.
import { readFileSync } from "node:fs";
import { makeExecutableSchema } from "../../src/graphql/apollo-server.js";
import { GraphQLError, GraphQLScalarType, Kind, responsePathAsArray, type GraphQLSchema } from "graphql";
import {
  formatGoFloat,
  formatRFC3339Nano,
  matchMachine,
  secondsSince,
  toInstant,
  type FakeMachine,
  type Instant,
  type MachineParams,
  type MachineState,
  type MachineStore,
} from "./fake-sabakan-machines.js";

/** sabakan's schema, byte for byte (gql/graph/schema.graphqls; its provenance in SOURCE.md beside it). */
export const SABAKAN_SCHEMA_URL = new URL("../fixtures/sabakan/schema.graphql", import.meta.url);

/** The SDL to serve: sabakan's own schema file, the repo's fixture. */
export function loadSabakanTypeDefs(): string {
  return readFileSync(SABAKAN_SCHEMA_URL, "utf8");
}

/** What each request's resolvers share: the one `now` of the request and the paths of Float values answered. */
export interface SabakanContext {
  readonly now: number;
  readonly floatPaths: Set<string>;
}

/** The key of a response path, the same for graphql-js's paths and {@link stringifyData}'s. */
function pathKey(path: ReadonlyArray<string | number>): string {
  return JSON.stringify(path);
}

/** gqlgen's form of a request error (parse, validation, variables): message, locations, extensions.code. */
export function requestError(e: GraphQLError, code: string): object {
  return { message: e.message, ...(e.locations ? { locations: e.locations } : {}), extensions: { code } };
}

/** The JSON of `text`; `text` itself when it is not JSON; undefined when empty. */
export function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** JSON of `data` with every Float that a resolver reported written as Go's `%g` writes it (e.g. `1.2e+06`). */
export function stringifyData(v: unknown, floats: ReadonlySet<string>, path: Array<string | number> = []): string {
  if (Array.isArray(v)) return `[${v.map((x, i) => stringifyData(x, floats, [...path, i])).join(",")}]`;
  if (isObject(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${stringifyData(x, floats, [...path, k])}`)
      .join(",")}}`;
  if (typeof v === "number" && floats.has(pathKey(path))) return formatGoFloat(v);
  return JSON.stringify(v) ?? "null";
}

function sabakanError(message: string, serial: string, type: string): GraphQLError {
  return new GraphQLError(message, { extensions: { serial, type } });
}

function nic(address: string): { address: string; netmask: string; maskbits: number; gateway: string } {
  return { address, netmask: "255.255.255.0", maskbits: 24, gateway: address.replace(/\.\d+$/, ".1") };
}

const dateTime = new GraphQLScalarType<Instant, string>({
  name: "DateTime",
  serialize: (v) => formatRFC3339Nano(v as Instant),
  parseValue: (v) => toInstant(String(v)),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("invalid DateTime");
    return toInstant(ast.value);
  },
});

const ipAddress = new GraphQLScalarType<string, string>({
  name: "IPAddress",
  serialize: (v) => String(v),
  parseValue: (v) => String(v),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("invalid IPAddress");
    return ast.value;
  },
});

/** The executable schema over `store`. */
export function makeSabakanSchema(typeDefs: string, store: MachineStore): GraphQLSchema {
  type Args<T> = (parent: unknown, args: T, ctx: SabakanContext) => unknown;
  const machine: Args<{ serial: string }> = (_p, { serial }) => {
    const m = store.get(serial);
    // sabakan's Query.machine returns the model's ErrNotFound as it is: message "not found", no extensions
    // (gql/graph/schema.resolvers.go); only setMachineState tags MACHINE_NOT_FOUND.
    if (!m) throw new Error("not found");
    return m;
  };
  const searchMachines: Args<{ having?: MachineParams | null; notHaving?: MachineParams | null }> = (_p, a, ctx) =>
    store.all().filter((m) => matchMachine(m, a.having, a.notHaving, ctx.now));
  const setMachineState: Args<{ serial: string; state: MachineState }> = (_p, { serial, state }, ctx) => {
    const r = store.transition(serial, state, ctx.now);
    if ("error" in r) throw sabakanError(r.message, serial, r.error);
    return r.machine;
  };
  return makeExecutableSchema({
    typeDefs,
    resolverValidationOptions: { requireResolversToMatchSchema: "ignore" },
    resolvers: {
      DateTime: dateTime,
      IPAddress: ipAddress,
      Query: { machine, searchMachines },
      Mutation: { setMachineState },
      Machine: { spec: (m: FakeMachine) => m, status: (m: FakeMachine) => m, info: (m: FakeMachine) => m },
      MachineSpec: {
        // Sorted by name; null when there are none (MachineSpecResolver.Labels).
        labels: (m: FakeMachine) => {
          const names = Object.keys(m.labels).sort();
          return names.length === 0 ? null : names.map((name) => ({ name, value: m.labels[name] }));
        },
        bmc: (m: FakeMachine) => ({ bmcType: m.bmcType, ipv4: m.bmcIPv4 }),
      },
      MachineStatus: {
        timestamp: (m: FakeMachine) => m.stateSince,
        // Computed at query time from the request's `now`; the path is kept so that it goes out as Go writes floats.
        duration: (m: FakeMachine, _a: unknown, ctx: SabakanContext, info: { path: Parameters<typeof responsePathAsArray>[0] }) => {
          ctx.floatPaths.add(pathKey(responsePathAsArray(info.path)));
          return secondsSince(m.stateSince, ctx.now);
        },
      },
      MachineInfo: {
        network: (m: FakeMachine) => ({ ipv4: m.ipv4.map(nic) }),
        bmc: (m: FakeMachine) => ({ ipv4: nic(m.bmcIPv4) }),
      },
    },
  });
}
