import { SabakanGatewayClient, SabakanUnavailableError, type SabakanAnswer } from "../adapters/sabakan-gateway-client.js";
import type { DependencyMonitor } from "../runner/dependency-monitor.js";
import { FleetSize } from "../graphql/limits/fleet-size.js";
import type { KintsugiStore } from "../store/store-port.js";

/**
 * The fleet size the cost model weighs by, fed by every poll outcome this replica's store commits (whichever replica
 * polled; seeded from the newest kept one) and by the gateway's `searchMachines` answers (see FleetObservingClient).
 */
export function observedFleet(store: KintsugiStore): FleetSize {
  const fleet = new FleetSize();
  // Seeded in the background: until the read answers, the fleet size is what sabakan's answers show.
  store.outcomes.last(1).then(
    (kept) => kept.forEach((outcome) => fleet.observe(outcome.machinesSeen)),
    () => undefined,
  );
  store.onCommit((commit) => {
    if (commit.outcome !== null) fleet.observe(commit.outcome.machinesSeen);
  });
  return fleet;
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
