import { canonicalAddresses, parseAddress } from "../../domain/shared/address.js";
import { frequentlyRepaired, machineRepairs } from "../../domain/stats/machine-repairs.js";
import { finishedRepairsIn, finishedRepairsWindowOf } from "../../domain/stats/finished-repairs-window.js";
import { frequentTopOf, lookupSerialOf, statsRangeOf } from "../../domain/stats/repair-stats-bounds.js";
import type { RepairStatsDimension } from "../../domain/stats/repair-stats.js";
import { ask } from "../../gateway/sabakan-forwarder.js";

import type { GraphQLContext } from "../context.js";
import { apiError } from "../errors.js";
import { inSlices } from "../list-slices.js";
import type { Resolvers } from "../generated/resolvers.js";

const seconds = (ms: number) => ms / 1000;

/** Every machine's rack as sabakan says now, by canonical address; empty without sabakan. Hostile values are left out. */
async function racksFromSabakan(ctx: GraphQLContext): Promise<Map<string, number>> {
  const racks = new Map<string, number>();
  if (!ctx.sabakan) return racks;
  const answer = await ask(ctx.sabakan, "query { searchMachines { spec { ipv4 rack } } }", {});
  if (answer.errors.length > 0) throw apiError("INVALID_ARGUMENT", `sabakan refused the rack lookup: ${answer.errors[0]!.message}`);
  const machines = (answer.data as { searchMachines?: unknown } | null)?.searchMachines;
  for (const m of Array.isArray(machines) ? machines : []) {
    const spec = (m as { spec?: { ipv4?: unknown; rack?: unknown } } | null)?.spec;
    if (!spec || !Number.isSafeInteger(spec.rack) || !Array.isArray(spec.ipv4)) continue;
    for (const address of canonicalAddresses(spec.ipv4.filter((a): a is string => typeof a === "string"))) racks.set(address, spec.rack as number);
  }
  return racks;
}

/** The addresses of the machine with `serial`, as sabakan says (INVALID_ARGUMENT when sabakan does not know it). */
async function addressesOfSerial(ctx: GraphQLContext, serial: string): Promise<string[]> {
  if (!ctx.sabakan) throw apiError("SABAKAN_NOT_CONFIGURED", "a serial is looked up in sabakan, which is not configured: give the address instead");
  const answer = await ask(ctx.sabakan, "query ($serial: ID!) { machine(serial: $serial) { spec { ipv4 } } }", { serial });
  const ipv4 = (answer.data as { machine?: { spec?: { ipv4?: unknown } } } | null)?.machine?.spec?.ipv4;
  if (answer.errors.length > 0 || !Array.isArray(ipv4)) throw apiError("INVALID_ARGUMENT", `serial: sabakan knows no machine ${JSON.stringify(serial)}`);
  return canonicalAddresses(ipv4.filter((a): a is string => typeof a === "string"));
}

export const repairStatsResolvers: Resolvers = {
  RepairStatsDimension: { MACHINE_TYPE: "machineType", OPERATION: "operation", RACK: "rack", STEP: "step" },
  Query: {
    repairStats: async (_, { since, until, groupBy }, ctx) => {
      const range = statsRangeOf(since, until ?? null, ctx.now());
      if (!range.ok) throw apiError("INVALID_ARGUMENT", range.message);
      // The generated enum carries the domain's spelling (codegen.yml's enumValues).
      const dimensions = [...new Set(groupBy ?? [])].map((d) => d as string as RepairStatsDimension);
      const racks = dimensions.includes("rack") ? await racksFromSabakan(ctx) : new Map<string, number>();
      // A copy of the shared answer: the groups themselves are only read.
      return [...(await ctx.repairSummaries.stats(range.since, range.until, dimensions, racks))];
    },
    machineRepairs: async (_, { address, serial }, ctx) => {
      if ((address == null) === (serial == null)) throw apiError("INVALID_ARGUMENT", "give exactly one of address and serial");
      let addresses: string[];
      if (address != null) {
        const parsed = parseAddress(address);
        if (!parsed.ok) throw apiError("INVALID_ADDRESS", `address: ${parsed.message}`);
        addresses = [parsed.address];
      } else {
        const checked = lookupSerialOf(serial!);
        if (!checked.ok) throw apiError("INVALID_ARGUMENT", checked.message);
        addresses = await addressesOfSerial(ctx, checked.serial);
      }
      return machineRepairs(ctx.finished.list(), addresses);
    },
    frequentlyRepaired: (_, { since, top }, ctx) => {
      const range = statsRangeOf(since, null, ctx.now());
      if (!range.ok) throw apiError("INVALID_ARGUMENT", range.message);
      const count = frequentTopOf(top ?? null);
      if (!count.ok) throw apiError("INVALID_ARGUMENT", count.message);
      return frequentlyRepaired(ctx.finished.list(range.since), range.since, count.top);
    },
    finishedRepairs: (_, { since, until, limit }, ctx) => {
      const window = finishedRepairsWindowOf(since, until ?? null, limit ?? null, ctx.now());
      if (!window.ok) throw apiError("INVALID_ARGUMENT", window.message);
      // Up to 5,000 records: completed a slice at a time, so a working queue's passes and /health go on between.
      return inSlices(finishedRepairsIn(ctx.finished.list(window.since), window));
    },
  },
  RepairStatsGroup: {
    machineType: (g) => g.key.machineType,
    operation: (g) => g.key.operation,
    rack: (g) => g.key.rack,
    step: (g) => g.key.step,
    drainingSeconds: (g) => seconds(g.drainingMs),
    stepsNeededP50: (g) => g.stepsNeeded?.p50 ?? null,
    stepsNeededMax: (g) => g.stepsNeeded?.max ?? null,
  },
  DurationSummary: {
    p50Seconds: (d) => seconds(d.p50),
    p90Seconds: (d) => seconds(d.p90),
    maxSeconds: (d) => seconds(d.max),
  },
  MachineRepairs: {
    meanSecondsBetweenFailures: (m) => (m.meanTimeBetweenFailuresMs === null ? null : seconds(m.meanTimeBetweenFailuresMs)),
  },
  FinishedRepair: {
    index: (r) => r.entryIndex,
  },
  MachineRepair: {
    index: (r) => r.repair.entryIndex,
    address: (r) => r.repair.address,
    machineType: (r) => r.repair.machineType,
    operation: (r) => r.repair.operation,
    status: (r) => r.repair.status,
    createdAt: (r) => r.repair.createdAt,
    finishedAt: (r) => r.repair.finishedAt,
    secondsSincePrevious: (r) => (r.sincePreviousMs === null ? null : seconds(r.sincePreviousMs)),
  },
};
