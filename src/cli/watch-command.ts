import { Command } from "commander";
import { createClient } from "graphql-ws";
import { CliError, describeSocketError } from "./client.js";
import type { CliIo } from "./repair-queue-commands.js";
import { applyEvent, eventLine, renderScreen, type WatchedEntry, type WatchedEvent } from "./watch-view.js";

const ENTRY = `index address nodename operation status step stepCount stepStatus deleted drainBackoffCount drainBackoffExpire lastTransitionTime`;
const RECENT = 8;

export interface WatchIo extends CliIo {
  readonly server: () => string;
  readonly tty: () => { readonly columns: number } | null;
}

/**
 * `kintsugi repair-queue watch [INDEX]`: follows the queue live through the `repairEntryEvents` subscription. On a
 * terminal the table is redrawn in place after each event; otherwise one line is printed per event. Subscribes
 * first and reads the queue once subscribed, so no change falls between the two.
 */
export function watchCommand(io: WatchIo): Command {
  return new Command("watch")
    .description("follow the repair queue live (a table on a terminal, one line per event otherwise)")
    .argument("[INDEX]", "follow only this entry")
    .action(async (index: string | undefined) => {
      const server = io.server().replace(/\/+$/, "");
      let entries = new Map<string, WatchedEntry>();
      const recent: string[] = [];
      const tty = io.tty();
      const draw = () => {
        if (tty) io.out(`\x1b[H\x1b[2J${renderScreen([...entries.values()], recent, server, tty.columns)}`);
      };
      const load = async () => {
        if (index !== undefined) {
          const r = await io.client().request<{ repairEntry: WatchedEntry }>(`query($i: ID!) { repairEntry(index: $i) { ${ENTRY} } }`, { i: index });
          entries = new Map([[r.repairEntry.index, r.repairEntry]]);
        } else {
          const r = await io.client().request<{ searchRepairEntries: WatchedEntry[] }>(`{ searchRepairEntries { ${ENTRY} } }`);
          entries = new Map(r.searchRepairEntries.map((e) => [e.index, e]));
        }
        if (!tty) process.stderr.write(`kintsugi: watching ${server}${index === undefined ? "" : ` entry ${index}`} (${entries.size} in the queue)\n`);
        draw();
      };
      await new Promise<void>((resolve, reject) => {
        const client = createClient({
          url: `${server.replace(/^http/, "ws")}/graphql`,
          // With --ca/--cert, the same trust and client certificate as the queries.
          webSocketImpl: io.client().webSocketImpl,
          retryAttempts: Infinity,
          lazy: false,
          // The subscription's own error handler reports a failed connection; graphql-ws would also dump it to stderr.
          onNonLazyError: () => undefined,
          // graphql-ws gives up at once on close 4401 (a missing or unknown token).
          connectionParams: io.client().connectionParams,
        });
        // Ends the watch once: with an error (exit 1) or without (a signal, the server ending the subscription).
        const finish = (err?: Error) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          void client.dispose();
          if (err) reject(err);
          else resolve();
        };
        const stop = () => finish();
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
        client.on("connected", () => {
          load().catch((err: unknown) => finish(err instanceof CliError ? err : new CliError((err as Error).message)));
        });
        client.subscribe<{ repairEntryEvents: WatchedEvent }>(
          { query: `subscription { repairEntryEvents { kind entry { ${ENTRY} } record { time reason } } }` },
          {
            next: ({ data }) => {
              const event = data?.repairEntryEvents;
              if (!event || (index !== undefined && event.entry.index !== index)) return;
              entries = applyEvent(entries, event);
              const line = eventLine(event);
              if (!tty) io.out(`${line}\n`);
              recent.push(line);
              if (recent.length > RECENT) recent.shift();
              draw();
            },
            error: (err) => finish(new CliError(`subscription failed: ${describeSocketError(err)}`)),
            complete: () => finish(),
          },
        );
      });
    });
}
