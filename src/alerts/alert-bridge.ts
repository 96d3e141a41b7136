import { createClient, type Client } from "graphql-ws";
import type { ClientTls } from "../adapters/tls-transport.js";
import { webSocketWithTls } from "../adapters/tls-websocket.js";
import type { Alert } from "../domain/alerts/alert.js";
import { alertFor, missedEventsAlert, type RepairEntryEventPayload } from "../domain/alerts/alert-messages.js";
import { alertForOutcome, INITIAL_OUTCOME_STATE, type AutoRepairOutcomePayload } from "../domain/alerts/auto-repair-alert-messages.js";
import { alertForClusterGeneration, type ClusterGenerationPayload } from "../domain/alerts/cluster-alert-messages.js";
import { alertForHoldEvent, type MachineHoldEventPayload } from "../domain/alerts/hold-alert-messages.js";
import { EntryCreators } from "./entry-creators.js";

/** A RepairEntryParams input, as the API takes it (statuses upper-case). */
export interface RepairEntryFilter {
  readonly statuses?: readonly string[] | null;
  readonly addresses?: readonly string[] | null;
  readonly machineTypes?: readonly string[] | null;
  readonly operations?: readonly string[] | null;
}

export interface AlertBridgeOptions {
  /** The kintsugi server's base URL, http(s)://host:port. */
  readonly server: string;
  readonly having: RepairEntryFilter | null;
  readonly post: (alert: Alert) => void;
  readonly log: (line: string) => void;
  readonly failureThreshold?: number;
  /** Reconnection back-off: first wait, doubled up to `retryMaxMs`. Defaults 500 ms and 30 s. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
  readonly now?: () => number;
  /** Sent in `connection_init` as `{ authorization: "Bearer <token>" }`; a refused token (close 4401) ends the bridge. */
  readonly token?: string | null;
  /** For an https server: the CA that signed its certificate, and a client certificate if it asks for one. */
  readonly tls?: ClientTls | null;
}

/** A running bridge. */
export interface AlertBridge {
  /** Rejects when the server refuses a subscription for good (such as a bad filter); resolves after close(). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

const ENTRY_EVENTS = /* GraphQL */ `
  subscription AlertEntryEvents($having: RepairEntryParams) {
    repairEntryEvents(having: $having) {
      kind
      entry { index address nodename serial machineType operation status step stepStatus drainBackoffCount drainBackoffExpire source }
      previous { status step stepStatus }
      record { time reason detail actor }
    }
  }
`;

const OUTCOMES = /* GraphQL */ `
  subscription AlertOutcomes {
    autoRepairOutcomes { sequence time trigger machinesSeen skipped { kind rack serial address reason } skippedByKind { kind machines } shortCircuit { existingEntries candidates limit } error }
  }
`;

const CLUSTER_GENERATIONS = /* GraphQL */ `
  subscription AlertClusterGenerations {
    clusterGenerated { sequence outcome generation time trigger changes error }
  }
`;

const HOLD_EVENTS = /* GraphQL */ `
  subscription AlertMachineHoldEvents {
    machineHoldEvents { kind actor hold { address reason setBy setAt until } }
  }
`;

function describe(err: unknown): string {
  if (Array.isArray(err)) return err.map((e: { message?: string }) => e.message ?? String(e)).join("; ");
  if (err && typeof err === "object" && "code" in err && "reason" in err) return `closed with ${String(err.code)} ${String(err.reason)}`.trim();
  // ws reports a refused connection as an ErrorEvent, which is not an Error but has a message.
  if (err && typeof err === "object" && "message" in err) return String(err.message);
  return String(err);
}

/**
 * Follows `repairEntryEvents` (filtered by `having`), `autoRepairOutcomes`, `clusterGenerated` and `machineHoldEvents` over graphql-ws
 * and posts the alerts the pure rules of alert-messages.ts and cluster-alert-messages.ts make of them. The connection is retried forever with capped exponential
 * back-off; after a lost connection comes back (or a subscription that fell behind is restarted) it posts one
 * message saying which span of events may have been missed. It remembers who created each entry it saw created, so
 * the alerts of that entry's repair can name who requested it.
 */
export function startAlertBridge(options: AlertBridgeOptions): AlertBridge {
  const { server, log, post } = options;
  const now = options.now ?? Date.now;
  const url = `${server.replace(/\/+$/, "").replace(/^http/, "ws")}/graphql`;
  const stopRetrying = new AbortController();
  let closing = false;
  let connected = false;
  let lostAt: number | null = null;
  let reportedDown = false;
  let socketError: string | null = null;
  let outcomeState = INITIAL_OUTCOME_STATE;
  let fail: (err: Error) => void = () => undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = (err) => {
      if (closing) return;
      reject(err);
    };
  });
  done.catch(() => undefined);

  const retryWait = (retries: number) =>
    new Promise<void>((resolve) => {
      if (stopRetrying.signal.aborted) return resolve();
      const delay = Math.min((options.retryInitialMs ?? 500) * 2 ** retries, options.retryMaxMs ?? 30_000);
      const wake = () => {
        clearTimeout(timer);
        stopRetrying.signal.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, delay);
      stopRetrying.signal.addEventListener("abort", wake);
    });

  const client: Client = createClient({
    url,
    webSocketImpl: webSocketWithTls(options.tls ?? null),
    lazy: false,
    ...(options.token && { connectionParams: { authorization: `Bearer ${options.token}` } }),
    retryAttempts: Infinity,
    retryWait,
    // graphql-ws retries only close events by default; a refused connection (server restarting) is an error event.
    shouldRetry: () => !closing,
    onNonLazyError: (err) => fail(new Error(`cannot follow ${url}: ${describe(err)}`)),
    on: {
      error: (err) => void (socketError = describe(err)),
      connected: () => {
        connected = true;
        reportedDown = false;
        if (lostAt === null) return log(`connected to ${url}`);
        const alert = missedEventsAlert(server, lostAt, now(), "reconnected");
        lostAt = null;
        log(alert.text);
        post(alert);
      },
      closed: (event) => {
        if (closing) return;
        const why = socketError ?? describe(event);
        socketError = null;
        if (connected) {
          connected = false;
          lostAt = now();
          log(`connection to ${url} lost (${why}); reconnecting`);
        } else if (!reportedDown) {
          reportedDown = true;
          log(`cannot connect to ${url} (${why}); retrying`);
        }
      },
    },
  });

  const follow = <T>(name: string, query: string, variables: Record<string, unknown>, onData: (data: T) => void): void => {
    let lastSeen = now();
    client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          lastSeen = now();
          if (result.errors?.length) log(`${name}: ${describe(result.errors)}`);
          if (result.data) onData(result.data);
        },
        error: (err) => {
          if (closing) return;
          const why = describe(err);
          if (!/fell \d+ events behind/.test(why)) return fail(new Error(`the server refused the ${name} subscription: ${why}`));
          const alert = missedEventsAlert(server, lastSeen, now(), "fell-behind");
          log(alert.text);
          post(alert);
          follow(name, query, variables, onData);
        },
        complete: () => {
          if (closing) return;
          log(`the server ended the ${name} subscription; subscribing again`);
          follow(name, query, variables, onData);
        },
      },
    );
  };

  const deliver = (alert: Alert | null) => {
    if (!alert) return;
    log(`alert: ${alert.title}`);
    post(alert);
  };
  const creators = new EntryCreators();
  follow<{ repairEntryEvents: RepairEntryEventPayload }>("repairEntryEvents", ENTRY_EVENTS, { having: options.having }, (data) => {
    deliver(alertFor(data.repairEntryEvents, creators.requesterOf(data.repairEntryEvents)));
  });
  follow<{ autoRepairOutcomes: AutoRepairOutcomePayload }>("autoRepairOutcomes", OUTCOMES, {}, (data) => {
    const result = alertForOutcome(data.autoRepairOutcomes, outcomeState, options.failureThreshold);
    outcomeState = result.state;
    deliver(result.alert);
  });
  follow<{ clusterGenerated: ClusterGenerationPayload }>("clusterGenerated", CLUSTER_GENERATIONS, {}, (data) =>
    deliver(alertForClusterGeneration(data.clusterGenerated)),
  );
  follow<{ machineHoldEvents: MachineHoldEventPayload }>("machineHoldEvents", HOLD_EVENTS, {}, (data) => deliver(alertForHoldEvent(data.machineHoldEvents)));

  return {
    done,
    async close() {
      if (closing) return;
      closing = true;
      stopRetrying.abort();
      let timer: NodeJS.Timeout | undefined;
      // dispose() waits for a connection attempt in progress; a server that never answers must not hold shutdown.
      await Promise.race([Promise.resolve(client.dispose()).catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 3000)))]);
      clearTimeout(timer);
      finish();
    },
  };
}
