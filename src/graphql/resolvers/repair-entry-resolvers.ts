import { parseAddress } from "../../domain/shared/address.js";
import { createRepairEntry, isFinished, type RepairEntry } from "../../domain/queue/repair-entry.js";
import { evidenceSignals } from "../../domain/proof/repair-evidence.js";
import { findRepairOperation } from "../../domain/queue/repair-config.js";
import { isDeletedEntryWait } from "../../domain/queue/entry-command.js";
import { parseCkeQueue, planQueueImport } from "../../domain/queue/cke-queue-import.js";
import { matchesRepairEntryParams, type RepairEntryParams } from "../../domain/queue/repair-entry-params.js";
import type { GraphQLContext } from "../context.js";
import { apiError } from "../errors.js";
import type { Resolvers, RepairEntryParams as RepairEntryParamsInput } from "../generated/resolvers.js";

/** Reads an entry index: a decimal string, as CKE writes it. */
export function parseIndex(id: string): number {
  const index = /^\d{1,15}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(index)) throw apiError("INVALID_INDEX", `invalid index ${JSON.stringify(id)}: an index is a decimal number`);
  return index;
}

function mustGet(ctx: GraphQLContext, id: string): RepairEntry {
  const entry = ctx.entries.get(parseIndex(id));
  if (!entry) throw apiError("NOT_FOUND", `repair entry ${id} not found`);
  return entry;
}

function canonicalAddress(input: string): string {
  const parsed = parseAddress(input);
  if (!parsed.ok) throw apiError("INVALID_ADDRESS", parsed.message);
  return parsed.address;
}

/** A RepairEntryParams input with its addresses in canonical form; INVALID_ADDRESS for one that is not. */
export function filterParams(params: RepairEntryParamsInput | null | undefined): RepairEntryParams | null {
  if (!params) return null;
  return { ...params, addresses: params.addresses?.map(canonicalAddress) ?? null };
}

export const repairEntryResolvers: Resolvers = {
  Query: {
    repairEntry: (_, { index }, ctx) => mustGet(ctx, index),
    repairHistory: async (_, { index }, ctx) => {
      const history = await ctx.entries.history(parseIndex(index));
      if (history.length === 0) throw apiError("NOT_FOUND", `repair entry ${index} never existed`);
      return history;
    },
    searchRepairEntries: (_, { having, notHaving }, ctx) => {
      const h = filterParams(having);
      const nh = filterParams(notHaving);
      return ctx.entries.list().filter((e) => matchesRepairEntryParams(e, h, nh));
    },
  },
  Mutation: {
    addRepairEntry: async (_, { operation, machineType, address, serial }, ctx) => {
      const canonical = canonicalAddress(address);
      const lookup = findRepairOperation(ctx.config.repair, machineType, operation);
      if (!lookup.ok) {
        throw apiError(lookup.reason === "procedure-not-found" ? "REPAIR_PROCEDURE_NOT_FOUND" : "REPAIR_OPERATION_NOT_FOUND", lookup.message);
      }
      const now = ctx.now();
      const trimmedSerial = serial?.trim() || null;
      const entry = createRepairEntry({ address: canonical, machineType, operation, serial: trimmedSerial, source: "operator" }, now);
      const change = await ctx.entries.add(entry, "added by an operator", now, ctx.actor.name);
      return change.entry;
    },
    importRepairEntries: async (_, { entries }, ctx) => {
      const parsed = parseCkeQueue(entries);
      if (!parsed.ok) throw apiError("REPAIR_IMPORT_REFUSED", `repair entries not imported: ${parsed.errors.join("; ")}`);
      const now = ctx.now();
      const finishedSources = new Set(ctx.finished.list().map((f) => f.source));
      const planFor = (queue: readonly RepairEntry[]) =>
        planQueueImport(parsed.entries, { repair: ctx.config.repair, queueEnabled: ctx.settings.repairQueueEnabled(), entries: queue, finishedSources }, now);
      const first = planFor(ctx.entries.list());
      if (!first.ok) throw apiError("REPAIR_IMPORT_REFUSED", `repair entries not imported: ${first.errors.join("; ")}`);
      const changes = await ctx.entries.addAll(
        (queue) => {
          const plan = planFor(queue);
          return plan.ok
            ? plan.add.map((entry) => ({ entry, reason: `imported from CKE's repair queue (CKE entry ${entry.source.slice("cke:".length)})` }))
            : [];
        },
        now,
        ctx.actor.name,
      );
      return { imported: changes.map((c) => c.entry), alreadyImported: first.imported.map(String) };
    },
    deleteRepairEntry: async (_, { index }, ctx) => {
      const target = mustGet(ctx, index).index;
      const changes = await ctx.entries.requestDelete((e) => e.index === target, "deletion requested by an operator", ctx.now(), ctx.actor.name);
      // Already marked: a no-op that answers with the entry as it is.
      return changes[0]?.entry ?? mustGet(ctx, index);
    },
    deleteFinishedRepairEntries: async (_, __, ctx) => {
      const changes = await ctx.entries.requestDelete(isFinished, "deletion of finished entries requested by an operator", ctx.now(), ctx.actor.name);
      return changes.map((c) => c.entry);
    },
    deleteUnfinishedRepairEntries: async (_, __, ctx) => {
      const changes = await ctx.entries.requestDelete(
        (e) => !isFinished(e),
        "deletion of unfinished entries requested by an operator",
        ctx.now(),
        ctx.actor.name,
      );
      return changes.map((c) => c.entry);
    },
    resetRepairBackoff: async (_, __, ctx) => {
      const changes = await ctx.entries.resetBackoff("drain back-off reset by an operator", ctx.now(), ctx.actor.name);
      return changes.map((c) => c.entry);
    },
  },
  RepairEntry: {
    index: (e) => String(e.index),
    history: (e, _, ctx) => ctx.entries.history(e.index),
    // A deleted entry waits only while it stays for a command that may still run; any other wait of it is from the
    // pass before its deletion.
    waitReason: (e, _, ctx) => {
      if (isFinished(e)) return null;
      const reason = ctx.waitReason(e.index);
      return !e.deleted || (reason !== null && isDeletedEntryWait({ message: reason })) ? reason : null;
    },
    waitingFor: (e, _, ctx) => {
      if (isFinished(e)) return null;
      const wait = ctx.waitingFor(e.index);
      return !e.deleted || isDeletedEntryWait(wait) ? wait : null;
    },
    currentStep: (e, _, ctx) => {
      const found = findRepairOperation(ctx.config.repair, e.machineType, e.operation);
      return found.ok ? (found.operation.repairSteps[e.step] ?? null) : null;
    },
    evidence: (e) => e.evidence ?? null,
    failure: (e, _, ctx) => (e.status === "failed" ? (ctx.finished.ofEntry(e.index)?.reason ?? null) : null),
    stepCount: (e, _, ctx) => {
      const found = findRepairOperation(ctx.config.repair, e.machineType, e.operation);
      return found.ok ? found.operation.repairSteps.length : null;
    },
  },
  EntryWait: {
    index: (w) => String(w.index),
    waitingFor: (w) => w,
  },
  Subscription: {
    repairWaits: {
      subscribe: (_, __, ctx) => ctx.pubsub.subscribe("repairWaits"),
      resolve: (payload: unknown) => payload as never,
    },
  },
  RepairStepConfig: {
    repairCommand: (s) => [...s.repairCommand],
  },
  RepairEvidence: {
    signals: (e) => evidenceSignals(e),
  },
  RepairHistoryRecord: {
    sequence: (r) => String(r.sequence),
  },
};
