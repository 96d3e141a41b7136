// The names operators' tools depend on, read from the code: config keys from the config file's schema, the API from
// the schema files, the CLI from its command tree, metrics from the registry, error codes from their catalogue.
// docs/contract.md lists them (scripts/contract.ts writes it) and test/docs/contract.test.ts keeps the two equal.
import type { Command } from "commander";
import { buildSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType } from "graphql";
import type { z } from "../../src/support/zod.js";
import { buildProgram } from "../../src/cli/main.js";
import { configFileSchema } from "../../src/config/config-schema.js";
import { ERROR_TYPES } from "../../src/graphql/errors.js";
import { KintsugiMetrics } from "../../src/graphql/metrics.js";
import { schemaSDL } from "../../src/graphql/schema.js";

export interface SchemaKey {
  /** `a.b[].c`: `c` in each item of the list `b` of the section `a`. */
  readonly path: string;
  /** The default the schema applies when the key is absent, when it is a number, boolean or string. */
  readonly default?: number | boolean | string;
}

/** Every key of the config file's schema, with its plain default. */
export function configKeys(schema: z.ZodType, path = "", out: SchemaKey[] = [], fallback?: unknown): SchemaKey[] {
  const def = schema._zod.def as {
    type: string;
    innerType?: z.ZodType;
    defaultValue?: unknown;
    in?: z.ZodType;
    element?: z.ZodType;
    shape?: Record<string, z.ZodType>;
  };
  if (def.type === "default") return configKeys(def.innerType!, path, out, def.defaultValue);
  if (def.innerType) return configKeys(def.innerType, path, out, fallback);
  if (def.type === "pipe" && def.in) return configKeys(def.in, path, out, fallback);
  if (def.type === "array" && def.element) return configKeys(def.element, `${path}[]`, out);
  if (def.type === "object" && def.shape) {
    for (const [key, value] of Object.entries(def.shape)) {
      const before = out.length;
      const at = path ? `${path}.${key}` : key;
      out.push({ path: at });
      configKeys(value, at, out);
      // The key's own default is found while walking its schema: read it back into its entry.
      const own = defaultOf(value);
      if (own !== undefined) out[before] = { path: at, default: own };
    }
  }
  return out;
}

/** A key's default when the schema gives a number, boolean or string of the type the key takes. */
function defaultOf(schema: z.ZodType): number | boolean | string | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
  if (def.type === "default") {
    const value = def.defaultValue;
    const inner = def.innerType!._zod.def as { type: string };
    if (typeof value === "number" && inner.type === "number") return value;
    if (typeof value === "boolean" || (typeof value === "string" && inner.type !== "pipe")) return value;
    return undefined;
  }
  return def.innerType ? defaultOf(def.innerType) : undefined;
}

/** Every leaf command as its words after `kintsugi`, with its long options and their environment variables. */
export function leafCommands(command: Command, words: string[] = []): Array<{ words: string[]; options: string[]; env: string[] }> {
  if (command.commands.length === 0) {
    return [
      {
        words,
        options: command.options.map((o) => o.long ?? "").filter((l) => l !== ""),
        env: command.options.flatMap((o) => (o.envVar ? [o.envVar] : [])),
      },
    ];
  }
  return command.commands.flatMap((sub) => leafCommands(sub, [...words, sub.name()]));
}

/** The `kintsugi` command tree, built without a server to talk to. */
export function kintsugiProgram(): Command {
  return buildProgram({
    out: () => undefined,
    client: () => {
      throw new Error("not used");
    },
  });
}

/** The metrics of a server, with a state that reads as empty. */
export function kintsugiMetrics(): KintsugiMetrics {
  return new KintsugiMetrics({
    entries: () => [],
    repairQueueEnabled: () => true,
    autoRepairEnabled: () => true,
    now: () => 0,
    clusterGeneration: () => ({ current: null, latest: null }),
    unusedMachines: () => null,
    isLeader: () => true,
    subscriptions: () => new Map(),
  });
}

/**
 * Names in groups: each group (a config section, a GraphQL type, a command, a metric, an error code) has its members
 * (keys, fields, options, labels), each with its arguments (a field's arguments), all sorted.
 */
export type NameTree = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/** The sections of docs/contract.md, in its order. */
export const CONTRACT_SECTIONS = ["config", "graphql", "cli", "env", "metrics", "errors"] as const;
export type ContractSection = (typeof CONTRACT_SECTIONS)[number];

function tree(entries: ReadonlyArray<readonly [group: string, member?: string, args?: readonly string[]]>): NameTree {
  const groups = new Map<string, Map<string, Set<string>>>();
  for (const [group, member, args] of entries) {
    const members = groups.get(group) ?? new Map<string, Set<string>>();
    groups.set(group, members);
    if (member === undefined) continue;
    const own = members.get(member) ?? new Set<string>();
    members.set(member, own);
    for (const a of args ?? []) own.add(a);
  }
  const sorted = [...groups.keys()].sort();
  return new Map(sorted.map((g) => [g, new Map([...groups.get(g)!.keys()].sort().map((m) => [m, [...groups.get(g)!.get(m)!].sort()]))]));
}

/** The public names as the code has them now. */
export function publicNamesInCode(): Record<ContractSection, NameTree> {
  const config = configKeys(configFileSchema).map(({ path }): [string, string?] => {
    const dot = path.search(/[.[]/);
    return dot < 0 ? [path] : [path.slice(0, dot), path.slice(dot).replace(/^\./, "")];
  });

  const schema = buildSchema(schemaSDL());
  const graphql = Object.values(schema.getTypeMap())
    .filter((t) => !t.name.startsWith("__"))
    .flatMap((t): Array<[string, string?, string[]?]> => {
      if (isObjectType(t) || isInterfaceType(t))
        return [[t.name], ...Object.values(t.getFields()).map((f): [string, string, string[]] => [t.name, f.name, f.args.map((a) => a.name)])];
      if (isInputObjectType(t)) return [[t.name], ...Object.keys(t.getFields()).map((f): [string, string] => [t.name, f])];
      if (isEnumType(t)) return [[t.name], ...t.getValues().map((v): [string, string] => [t.name, v.name])];
      if (isUnionType(t)) return [[t.name], ...t.getTypes().map((m): [string, string] => [t.name, m.name])];
      if (isScalarType(t) && !["String", "Int", "Float", "Boolean", "ID"].includes(t.name)) return [[t.name]];
      return [];
    });

  const program = kintsugiProgram();
  const cli: Array<[string, string?]> = [
    ["kintsugi"],
    ...program.options.map((o): [string, string] => ["kintsugi", o.long ?? ""]),
    ...leafCommands(program).flatMap(({ words, options }) => {
      const name = ["kintsugi", ...words].join(" ");
      return [[name] as [string], ...options.map((o): [string, string] => [name, o])];
    }),
  ];
  const env = [program, ...allCommands(program)].flatMap((c) => c.options.flatMap((o): Array<[string]> => (o.envVar ? [[o.envVar]] : [])));

  const served = kintsugiMetrics();
  const metrics = [served.registry, served.leaderRegistry, served.integrationRegistry]
    .flatMap((r) => r.getMetricsAsArray())
    .flatMap((m): Array<[string, string?]> => {
      const labels = (m as { labelNames?: readonly string[] }).labelNames ?? [];
      return [[m.name], ...labels.map((l): [string, string] => [m.name, l])];
    });

  return {
    config: tree(config),
    graphql: tree(graphql),
    cli: tree(cli),
    env: tree(env),
    metrics: tree(metrics),
    errors: tree(Object.keys(ERROR_TYPES).map((code): [string] => [code])),
  };
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...allCommands(sub)]);
}

/** A section as Markdown list items: "- `group`" or "- `group`: `member`, `member(arg, arg)`". */
export function renderNames(names: NameTree): string[] {
  return [...names].map(([group, members]) => {
    if (members.size === 0) return `- \`${group}\``;
    const items = [...members].map(([m, args]) => `\`${args.length === 0 ? m : `${m}(${args.join(", ")})`}\``);
    return `- \`${group}\`: ${items.join(", ")}`;
  });
}

/** The names of list items written by {@link renderNames}; throws naming a line it cannot read. */
export function parseNames(lines: readonly string[]): NameTree {
  const entries: Array<[string, string?, string[]?]> = [];
  for (const line of lines) {
    const m = /^- `([^`]+)`(?:: (.*))?$/.exec(line);
    if (!m) throw new Error(`cannot read the contract line ${JSON.stringify(line)}`);
    entries.push([m[1]!]);
    for (const item of m[2] === undefined ? [] : [...m[2].matchAll(/`([^`]+)`/g)].map((x) => x[1]!)) {
      const call = /^([^(]+)\((.*)\)$/.exec(item);
      entries.push(call ? [m[1]!, call[1]!, call[2]!.split(", ")] : [m[1]!, item]);
    }
  }
  return tree(entries);
}

/** Every name of a tree as one string: `group`, `group member`, `group member(arg)`. */
export function flatNames(names: NameTree): string[] {
  return [...names].flatMap(([group, members]) => [
    group,
    ...[...members].flatMap(([m, args]) => [`${group} ${m}`, ...args.map((a) => `${group} ${m}(${a})`)]),
  ]);
}
