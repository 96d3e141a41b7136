import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

/** One entry's wait as `repairWaits` sends it. */
export interface EntryWait {
  readonly index: string;
  readonly waitingFor: { readonly kind: string; readonly message: string };
}

/**
 * The waits the story tells: a control-plane rule and pacing hold an entry back for a reason no transition records.
 * The others are told already (a drain back-off and a command by the entry's transitions, a hold by the poll's
 * narration) or are too common to tell (a free repair slot).
 */
export const TOLD_WAITS: ReadonlySet<string> = new Set(["CONTROL_PLANE", "PACING"]);

/**
 * The story lines for one `repairWaits` message, and the waits told so far for the next: an entry's wait is told once
 * when it starts to wait for a told reason and again only when that reason changes; `addressOf` names the machine.
 */
export function waitLines(
  waits: readonly EntryWait[],
  told: ReadonlyMap<string, string>,
  addressOf: (index: string) => string | undefined,
): { lines: string[]; told: Map<string, string> } {
  const next = new Map<string, string>();
  const lines: string[] = [];
  for (const { index, waitingFor } of waits) {
    if (!TOLD_WAITS.has(waitingFor.kind)) continue;
    const key = `${waitingFor.kind}: ${waitingFor.message}`;
    next.set(index, key);
    if (told.get(index) !== key) lines.push(`#${index} ${addressOf(index) ?? "?"} waits: ${waitingFor.message}`);
  }
  return { lines, told: next };
}

/**
 * Follows kintsugi's `repairWaits` subscription over graphql-ws, as any client of its API would, and hands each
 * message's story lines to `tell`. Returns a function that stops following.
 */
export function followWaits(url: string, addressOf: (index: string) => string | undefined, tell: (line: string) => void): () => Promise<void> {
  const client: Client = createClient({ url: `${url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: Infinity, lazy: false });
  let told = new Map<string, string>();
  client.subscribe<{ repairWaits: EntryWait[] }>(
    { query: "subscription { repairWaits { index waitingFor { kind message } } }" },
    {
      next: ({ data }) => {
        if (!data) return;
        const result = waitLines(data.repairWaits, told, addressOf);
        told = result.told;
        for (const line of result.lines) tell(line);
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
  return () => client.dispose() as Promise<void>;
}
