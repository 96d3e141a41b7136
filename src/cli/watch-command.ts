import { Command } from "commander";
import { CliError, describeSocketError } from "./client.js";
import { formatGoDuration } from "./durations.js";
import type { CliIo } from "./repair-queue-commands.js";
import { WatchEntries, WatchEntry, WatchWaits } from "./documents.js";
import type { WatchEntriesQuery, WatchEntryQuery, WatchFieldsFragment, WatchWaitsSubscription } from "./generated/operations.js";
import { applyEvent, applyWaits, eventLine, renderScreen, waitLine, type WatchedEntry, type WatchedEvent } from "./watch-view.js";

const ENTRY = `index address nodename operation status step stepCount stepStatus deleted drainBackoffCount drainBackoffExpire lastTransitionTime`;
const RECENT = 8;

export interface WatchIo extends CliIo {
  readonly server: () => string;
  /** The terminal's width, read at each redraw; null when the output is no terminal. */
  readonly tty: () => { readonly columns: () => number } | null;
}

// Read once, then kept up to date by repairWaits: an event's entry carries no wait, the pass after it decides it.
const withLatestReason = (e: WatchFieldsFragment): WatchedEntry => {
  const { history, waitingFor, ...fields } = e;
  return { ...fields, reason: history.at(-1)?.reason ?? "", wait: waitingFor && { kind: waitingFor.kind, message: waitingFor.message } };
};

/**
 * `kintsugi repair-queue watch [INDEX]`: follows the queue live through the `repairEntryEvents` and `repairWaits`
 * subscriptions. On a terminal the table is redrawn in place after each event, with what each unfinished entry
 * waits for; otherwise one line is printed per event and per new wait. Subscribes
 * first and reads the queue once the server says the subscriptions listen (whenListening), applying what comes
 * meanwhile after the read, so no change falls between the two. When the server goes away (a restart), it says so,
 * reconnects, subscribes again and reads the queue afresh.
 */
export function watchCommand(io: WatchIo): Command {
  return new Command("watch")
    .description("follow the repair queue live (a table on a terminal, one line per event otherwise); reconnects when the server restarts")
    .argument("[INDEX]", "follow only this entry")
    .action(async (index: string | undefined) => {
      const server = io.server().replace(/\/+$/, "");
      let entries = new Map<string, WatchedEntry>();
      const recent: WatchedEvent[] = [];
      let status: string | null = null;
      const tty = io.tty();
      const draw = () => {
        if (tty) io.out(`\x1b[H\x1b[2J${renderScreen({ entries: [...entries.values()], recent, server, width: tty.columns(), status })}`);
      };
      // News about the connection: a line on stderr beside the event lines, or a line under the table's header.
      const say = (news: string) => {
        if (!tty) return void (io.note ?? ((text: string) => process.stderr.write(text)))(`kintsugi: ${news}\n`);
        status = news;
        draw();
      };
      // Events that come while the queue is read are applied after the read, which may be older than they are.
      let pending: Array<() => void> | null = null;
      const apply = (change: () => void) => (pending ? pending.push(change) : change());
      const load = async (): Promise<number> => {
        pending = [];
        try {
          if (index !== undefined) {
            const r = await io.client().request<WatchEntryQuery>(WatchEntry, { index });
            entries = new Map([[r.repairEntry.index, withLatestReason(r.repairEntry)]]);
          } else {
            const r = await io.client().request<WatchEntriesQuery>(WatchEntries);
            entries = new Map(r.searchRepairEntries.map((e) => [e.index, withLatestReason(e)]));
          }
          for (const change of pending) change();
          return entries.size;
        } finally {
          pending = null;
        }
      };
      // graphql-ws and ws load when a command subscribes, not with every command's modules.
      const [{ watchConnection }, { whenListening }, webSocketImpl] = await Promise.all([
        import("./watch-connection.js"),
        import("../graphql/when-listening.js"),
        io.client().webSocketImpl(),
      ]);
      await new Promise<void>((resolve, reject) => {
        let asking: (() => void) | null = null;
        const connection = watchConnection({
          url: `${server.replace(/^http/, "ws")}/graphql`,
          // With --ca/--cert, the same trust and client certificate as the queries.
          webSocketImpl,
          // graphql-ws gives up at once on close 4401 (a missing or unknown token).
          connectionParams: io.client().connectionParams,
          onConnected: (lostAt) => {
            asking?.();
            asking = whenListening(connection.client, () => {
              asking = null;
              load()
                .then((size) => {
                  const what = `${index === undefined ? "" : ` entry ${index}`} (${size} in the queue)`;
                  if (lostAt === null && !tty) say(`watching ${server}${what}`);
                  if (lostAt === null) return draw();
                  const after = formatGoDuration(Math.round((Date.now() - lostAt) / 1000) * 1000);
                  say(`reconnected to ${server} after ${after}; watching${what}, read afresh: events while disconnected are not shown`);
                })
                .catch((err: unknown) => finish(err instanceof CliError ? err : new CliError((err as Error).message)));
            });
          },
          onLost: (why) => say(`connection to ${server} lost (${why}); reconnecting`),
        });
        // Ends the watch once: with an error (exit 1) or without (a signal, the server ending the subscription).
        const finish = (err?: Error) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          if (tty) process.stdout.off("resize", draw);
          void connection.dispose();
          if (err) reject(err);
          else resolve();
        };
        const stop = () => finish();
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
        if (tty) process.stdout.on("resize", draw);
        connection.client.subscribe<{ repairEntryEvents: WatchedEvent }>(
          { query: `subscription { repairEntryEvents { kind entry { ${ENTRY} } record { time reason } } }` },
          {
            next: ({ data }) => {
              const event = data?.repairEntryEvents;
              if (!event || (index !== undefined && event.entry.index !== index)) return;
              apply(() => (entries = applyEvent(entries, event)));
              // Stamped with its arrival, like the wait lines: the record's time is whole seconds on the server's clock, and
              // a wait line stamped in between printed out of order.
              if (!tty) io.out(`${eventLine(event, new Date().toISOString())}\n`);
              recent.push(event);
              if (recent.length > RECENT) recent.shift();
              draw();
            },
            error: (err) => finish(new CliError(`subscription failed: ${describeSocketError(err, io.client().hasToken)}`)),
            complete: () => finish(),
          },
        );
        connection.client.subscribe<WatchWaitsSubscription>(
          { query: WatchWaits },
          {
            next: ({ data }) => {
              if (!data) return;
              apply(() => {
                const applied = applyWaits(entries, data.repairWaits);
                entries = applied.entries;
                if (!tty) for (const e of applied.changed) io.out(`${waitLine(e, new Date().toISOString())}\n`);
                draw();
              });
            },
            error: (err) => finish(new CliError(`subscription failed: ${describeSocketError(err, io.client().hasToken)}`)),
            complete: () => finish(),
          },
        );
      });
    });
}
