// The shapes that bench/abuse sends a kintsugi serve, from a viewer token: what each client does and how
// its answer is told (refused with the limit it names, or answered with its size), and the hostile Kubernetes APIs.
import { ABUSE_SHAPES } from "../test/support/cost-shapes.js";
import type { HostileBehaviour, HostileKubeApi } from "../test/support/hostile-kube-api.js";
import { REPLAY_DAYS } from "./abuse-seed.js";
import { subscriptionShape } from "./abuse-subscriptions.js";

/** What a shape's clients have: the server, the tokens, sabakan's request count and a way to fire a repair event. */
export interface ShapeContext {
  readonly url: string;
  readonly viewer: string;
  /** An admin's token (adds, as an operator's script makes them). */
  readonly admin: string;
  /** The machines sabakan serves; the bench's adds count down from the last. */
  readonly fleet: number;
  /** Requests sabakan received so far. */
  readonly sabakanRequests: () => number;
  readonly kube: HostileKubeApi | null;
  /** Adds a repair entry with the admin token: one repairEntryEvents event. */
  readonly fire: () => Promise<void>;
  /** The server's resident memory now (VmRSS, MB), or null once it is gone. */
  readonly residentMb: () => number | null;
  /** Resolves with why, once the server is gone. */
  readonly gone: () => Promise<string>;
  /** The server's log records so far (pino's JSON lines). */
  readonly logRecords: () => ReadonlyArray<{ msg: string; [field: string]: unknown }>;
  readonly now: number;
}

export interface Shape {
  readonly name: string;
  /** A hostile Kubernetes API the server is configured with (one API server: these run one at a time only). */
  readonly kube?: { readonly behaviour: HostileBehaviour; readonly listBytes?: number };
  /** Run with one client only (the hostile APIs, the idle server). */
  readonly once?: boolean;
  /** Sent to a server nobody has asked anything yet (no CKE search first: the first request after a start). */
  readonly cold?: boolean;
  /** Entries added (by an admin, at once) before the shape runs: a working queue next to it. */
  readonly queue?: number;
  /** Run on the started server before it is measured (what the shape needs in place, e.g. a working queue). */
  readonly prepare?: (ctx: ShapeContext) => Promise<void>;
  /** Runs `clients` clients at once; `note` keeps the progress for a timeout's report. */
  run(ctx: ShapeContext, clients: number, note: (progress: string) => void): Promise<string>;
}

const MB = 1024 * 1024;
/** How long a hostile Kubernetes API is left to work on the server. */
export const KUBE_WINDOW_MS = 15_000;

const bytes = (n: number) => (n >= MB ? `${(n / MB).toFixed(1)} MB` : `${n} B`);

/** POSTs a document with `token` and tells its answer, counting the body's bytes as they come (never holding them). */
export function postAnswer(url: string, token: string, query: string, variables?: Record<string, unknown>): Promise<string> {
  return postRaw(url, token, JSON.stringify({ query, variables }));
}

/** POSTs a request body as it is written (one JSON.stringify could not write) and tells its answer as postAnswer does. */
export async function postRaw(url: string, token: string, text: string): Promise<string> {
  try {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: text,
    });
    let size = 0;
    const head: Buffer[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size <= 64 * 1024) head.push(Buffer.from(chunk));
    }
    let body: { data?: unknown; errors?: Array<{ message?: string; extensions?: { limit?: string } }> } = {};
    try {
      if (size <= 64 * 1024) body = JSON.parse(Buffer.concat(head).toString("utf8"));
    } catch {
      body = {};
    }
    const error = body.errors?.[0];
    if (error?.extensions?.limit) return `refused: ${error.extensions.limit} (HTTP ${res.status}, ${bytes(size)})`;
    if (error) return `error: ${error.message?.slice(0, 90)} (HTTP ${res.status}, ${bytes(size)})`;
    return `answered (HTTP ${res.status}, ${bytes(size)})`;
  } catch (err) {
    return `failed: ${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ""}`;
  }
}

/** How long each client of a request shape keeps asking (at least once): a refusal takes milliseconds. */
export const REPEAT_MS = 5_000;

/** `clients` at once, each repeating `one` until REPEAT_MS passed; their answers, alike ones counted together. */
export async function atOnce(clients: number, one: () => Promise<string>): Promise<string> {
  const until = performance.now() + REPEAT_MS;
  const answers: string[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      do answers.push(await one());
      while (performance.now() < until);
    }),
  );
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  return [...counts].map(([a, n]) => `${n}x ${a}`).join("; ");
}

/** `field` written `count` times, each under its own alias. */
export const aliased = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(" ");

function replay(aliases: number): Shape {
  const query = `query ($since: DateTime!) { ${aliased(aliases, "simulateAutoRepair(since: $since, constraints: { maximumRepairQueueEntries: 2 }) { pollsReplayed truncated }")} }`;
  return {
    name: `simulateAutoRepair over ${REPLAY_DAYS} days of polls, ${aliases} alias${aliases > 1 ? "es" : ""}`,
    run: (ctx, clients) =>
      atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query, { since: new Date(ctx.now - (REPLAY_DAYS * 86_400_000 - 3_600_000)).toISOString() })),
  };
}

function subscriptions(count: number): Shape {
  return {
    name: `${count} subscriptions, each its own alias on RepairEntry.machine, one event`,
    run: (ctx, clients, note) => subscriptionShape(ctx, count, clients, note),
  };
}

function cost(index: number, name: string): Shape {
  const query = ABUSE_SHAPES[index]!.query;
  return { name, run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query)) };
}

/** Leaves the hostile API to the server for KUBE_WINDOW_MS: alive or crashed, and what it read of the answers. */
function hostile(name: string, behaviour: HostileBehaviour, listBytes?: number): Shape {
  return {
    name,
    kube: { behaviour, ...(listBytes !== undefined && { listBytes }) },
    once: true,
    async run(ctx) {
      let timer: NodeJS.Timeout | undefined;
      const window = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), KUBE_WINDOW_MS)));
      const gone = await Promise.race([ctx.gone(), window]);
      clearTimeout(timer);
      const answers = ctx.kube?.answers ?? [];
      const read = (kind: "watch" | "list") => answers.filter((a) => a.kind === kind);
      const sent = (kind: "watch" | "list") =>
        `${read(kind).length} ${kind === "watch" ? "watches" : "lists"} (${bytes(read(kind).reduce((n, a) => n + a.bytesSent, 0))} sent)`;
      return `${gone ?? `alive after ${KUBE_WINDOW_MS / 1000} s`}; ${sent("list")}, ${sent("watch")}`;
    },
  };
}

/** Every shape, in the order the bench runs them. */
export const SHAPES: readonly Shape[] = [
  {
    name: "idle (after CKE's searchMachines), 5 s",
    once: true,
    run: async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return `VmRSS ${Math.round(ctx.residentMb() ?? Number.NaN)} MB at the end`;
    },
  },
  replay(1),
  replay(30),
  subscriptions(100),
  subscriptions(800),
  cost(0, "30 aliased searchMachines with every field"),
  cost(1, "autoRepairOutcomes { skipped } x5 over 1,000 outcomes"),
  hostile("Kubernetes: a watch line that never ends", "endless-watch-line"),
  hostile("Kubernetes: a 200 MB NodeList", "huge-list", 200 * MB),
  hostile("Kubernetes: a watch that sends nothing", "silent-watch"),
  hostile("Kubernetes: an HTML page for list and watch", "non-json"),
];
