// bench/abuse's shapes of the status page and the statistics at a data center's size: the status page's panels as
// the page asked for them before it drew from counts and as it asks now (each client reads them all, again until 5 s passed, as four
// viewers reloading would), finishedRepairs over a week and repairStats over 89 days next to a working queue (an
// operator adds entries all along; the runner works them), and 1,000 subscribers of one repair event.
import { FINISHED_LIMIT, READS } from "../scripts/status-page/queries.js";
import { subscriptionShape } from "./abuse-subscriptions.js";
import { atOnce, postAnswer, type Shape, type ShapeContext } from "./abuse-shapes.js";

const DAY = 86_400_000;

/** The status page's documents as the page sent them before it drew from counts: every machine, every listed skip. */
const EARLIER_PAGE = {
  machines: READS.machines,
  outcomes:
    "query StatusPolls { autoRepairOutcomes(last: 5) { sequence time trigger machinesSeen enqueued { index address } skipped { serial address state reason kind held } skippedTotal shortCircuit { existingEntries candidates limit } error } }",
} as const;

/** The status page's reads at load as this checkout's page sends them (scripts/status-page/queries.ts), at 10,000 machines. */
function pageReads(): ReadonlyArray<readonly [string, Record<string, unknown>?]> {
  return [
    [READS.counts],
    [READS.entries],
    [READS.holds],
    [READS.outcomes],
    [READS.finished, { since: new Date(Date.now() - DAY).toISOString(), limit: FINISHED_LIMIT }],
    [READS.dependencies],
    [READS.limits],
  ];
}

/** One document, `clients` at once, each again until 5 s passed. */
function read(name: string, query: string, variables?: (ctx: ShapeContext) => Record<string, unknown>, prepare?: Shape["prepare"]): Shape {
  return {
    name,
    ...(prepare && { prepare }),
    run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query, variables?.(ctx))),
  };
}

/** Every read of the page at once, per client; the answers told together ("7 documents: ..."). */
const wholePage: Shape = {
  name: "status page: every panel at load, as the page asks now (machineStateCounts, skipped(first: 20), ...)",
  run: (ctx, clients) =>
    atOnce(clients, async () => {
      const answers = await Promise.all(pageReads().map(([query, variables]) => postAnswer(ctx.url, ctx.viewer, query, variables)));
      const failed = answers.filter((a) => !a.startsWith("answered"));
      return failed.length === 0 ? `${answers.length} documents answered` : `${failed.length} of ${answers.length} failed: ${failed[0]}`;
    }),
};

/** Entries an operator adds before a working-queue shape, and one every 100 ms while it runs. */
const QUEUED = 300;
const workingQueue: NonNullable<Shape["prepare"]> = async (ctx) => {
  for (let i = 0; i < QUEUED; i++) await ctx.fire();
};

/** Keeps adding entries (one every 100 ms) while `work` runs: the runner keeps working, the store keeps committing. */
function nextToWork(shape: Shape): Shape {
  return {
    ...shape,
    prepare: workingQueue,
    async run(ctx, clients, note) {
      let adding = true;
      const adder = (async () => {
        while (adding) {
          await ctx.fire();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      try {
        return await shape.run(ctx, clients, note);
      } finally {
        adding = false;
        await adder;
      }
    },
  };
}

/** The status page's and statistics' shapes, in the order the bench runs them. */
export const STATUS_SHAPES: readonly Shape[] = [
  read("status page racks as the page asked before counts: searchMachines, every machine", EARLIER_PAGE.machines),
  read("status page racks as the page asks now: machineStateCounts", READS.counts),
  read("status page polls as the page asked before counts: autoRepairOutcomes(last: 5) { skipped }", EARLIER_PAGE.outcomes),
  read("status page polls as the page asks now: skipped(first: 20), skippedByKind", READS.outcomes),
  wholePage,
  nextToWork(
    read("finishedRepairs over a week, limit 5,000, next to a working queue", READS.finished, () => ({
      since: new Date(Date.now() - 7 * DAY + 60_000).toISOString(),
      limit: 5_000,
    })),
  ),
  nextToWork(
    read(
      "repairStats over 89 days next to a working queue",
      "query ($since: DateTime!) { repairStats(since: $since) { entries succeeded failed withHistory drainingSeconds timeToRepair { p50Seconds p90Seconds } } }",
      () => ({
        since: new Date(Date.now() - 89 * DAY).toISOString(),
      }),
    ),
  ),
  {
    name: "1,000 subscriptions of repairEntryEvents (10 connections), one event",
    once: true,
    run: (ctx, clients, note) =>
      subscriptionShape(ctx, 1_000, clients, note, () => "subscription { repairEntryEvents { kind entry { index address status } } }"),
  },
];
