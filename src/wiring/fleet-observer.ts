import { COUNT_MACHINES } from "../adapters/sabakan-documents.js";
import { SabakanGatewayClient, SabakanUnavailableError, type SabakanAnswer } from "../adapters/sabakan-gateway-client.js";
import type { DependencyMonitor } from "../runner/dependency-monitor.js";
import { FleetSize } from "../graphql/limits/fleet-size.js";
import { FLEET_CEILING } from "../graphql/limits/list-bounds.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import type { KintsugiStore } from "../store/store-port.js";
import { abortableSleep } from "../support/abortable-sleep.js";
import type { Log } from "../support/log.js";

/** How long start waits for sabakan's count of the fleet before serving on the assumption (FLEET_CEILING). */
export const COUNT_WAIT_MS = 5_000;

/** Between two counts that failed (sabakan unreachable at start). */
export const COUNT_RETRY_MS = 30_000;

export interface ObservedFleet {
  readonly fleet: FleetSize;
  /** Stops asking sabakan for the count (asked again after a failure until it answers). */
  stop(): void;
}

/**
 * The fleet size the cost model weighs by, known before the first request is served: seeded from the newest kept
 * poll outcome, fed by every outcome this replica's store commits (whichever replica polled) and by the gateway's
 * `searchMachines` answers (see FleetObservingClient), and, with sabakan configured, counted at start by one
 * unfiltered search. Start waits up to `waitMs` for that count; until it comes, the largest fleet the defaults are
 * made for is assumed, so a request sized by a fleet nobody has counted yet is never admitted cheaply (after a
 * restart, or while sabakan does not answer). A count that fails is asked again every `retryMs`.
 */
export async function observedFleet(
  store: Pick<KintsugiStore, "onCommit"> & { readonly outcomes: Pick<KintsugiStore["outcomes"], "last"> },
  sabakan: SabakanAsker | null,
  log: Log,
  { waitMs = COUNT_WAIT_MS, retryMs = COUNT_RETRY_MS } = {},
): Promise<ObservedFleet> {
  const fleet = new FleetSize(sabakan ? FLEET_CEILING : 0);
  store.onCommit((commit) => {
    if (commit.outcome !== null) fleet.observe(commit.outcome.machinesSeen);
  });
  const stopped = new AbortController();
  // Start waits for the first answer (or failure) only: the retries go on in the background.
  let firstTried: () => void = () => undefined;
  const counting = new Promise<void>((resolve) => (firstTried = resolve));
  if (sabakan) void countFleet(sabakan, fleet, log, retryMs, stopped.signal, firstTried);
  else firstTried();
  const seeded = store.outcomes.last(1).then(
    (kept) => kept.forEach((outcome) => fleet.observe(outcome.machinesSeen)),
    () => undefined,
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
  await Promise.race([Promise.all([seeded, counting]), waited]);
  clearTimeout(timer);
  return { fleet, stop: () => stopped.abort() };
}

type SabakanAsker = { execute(document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> };

/** Asks sabakan for every machine until it answers (or `signal` aborts), and notes the count; `tried` after each try. */
async function countFleet(sabakan: SabakanAsker, fleet: FleetSize, log: Log, retryMs: number, signal: AbortSignal, tried: () => void): Promise<void> {
  for (let attempt = 1; !signal.aborted; attempt++) {
    const failure = await countOnce(sabakan, fleet);
    tried();
    if (failure === null) return;
    // Said once: the poller and the gateway report sabakan's outages themselves.
    if (attempt === 1)
      log.warn(`cannot count sabakan's machines; the API weighs fleet-sized lists as if the fleet had ${FLEET_CEILING} machines until it can`, {
        err: failure,
        retrySeconds: retryMs / 1000,
      });
    await abortableSleep(retryMs, signal);
  }
}

/** One count: null when sabakan answered it, else why not. */
async function countOnce(sabakan: SabakanAsker, fleet: FleetSize): Promise<string | null> {
  try {
    const answer = await sabakan.execute(COUNT_MACHINES, {});
    const machines = answer.data?.["searchMachines"];
    if (!Array.isArray(machines)) return answer.errors[0]?.message ?? "no searchMachines in its answer";
    fleet.counted(machines.length);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A client of its own for the count at start (the gateway's bounds its fetches per request; this is one fetch). */
export function countingClient(sabakan: NonNullable<KintsugiConfig["sabakan"]>): SabakanGatewayClient {
  return new SabakanGatewayClient({ url: sabakan.url, timeoutMs: sabakan.timeoutSeconds * 1000, maxResponseBytes: sabakan.maxResponseBytes });
}

/**
 * The gateway's sabakan client, noting the length of every `searchMachines` list sabakan answers with, and whether
 * sabakan answered at all (`dependencies`): an answer with errors is sabakan speaking, only no answer is an outage.
 */
export class FleetObservingClient extends SabakanGatewayClient {
  constructor(
    options: ConstructorParameters<typeof SabakanGatewayClient>[0],
    private readonly fleet: FleetSize,
    private readonly dependencies?: DependencyMonitor,
  ) {
    super(options);
  }

  override async execute(document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> {
    let answer: SabakanAnswer;
    try {
      answer = await super.execute(document, variables);
    } catch (err) {
      if (err instanceof SabakanUnavailableError) this.dependencies?.failed("sabakan", err);
      throw err;
    }
    this.dependencies?.worked("sabakan");
    const machines = answer.data?.["searchMachines"];
    if (Array.isArray(machines)) this.fleet.observe(machines.length);
    return answer;
  }
}
