import { ClientError, GraphQLClient } from "graphql-request";
import { machineBmcOf } from "../domain/sabakan/machine-bmc.js";
import { MACHINE_STATES, type MachineQueryVariables, type MachineState } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";
import { BoundExceededError, boundedFetch } from "./bounded-fetch.js";
import type { MachineSource } from "./ports.js";
import { SEARCH_MACHINES } from "./sabakan-documents.js";

export interface SabakanClientOptions {
  /** sabakan's base URL; "/graphql" is appended unless the URL already ends with it. */
  readonly url: string;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** kintsugi's clock (ms since the epoch), against which `status.duration` dates each state change. */
  readonly now?: () => number;
}

/** A failed call to sabakan; the message says what went wrong in an operator's words. */
export class SabakanError extends Error {
  override readonly name = "SabakanError";
}

/** The GraphQL endpoint for a sabakan base URL. */
export function sabakanEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/graphql") ? trimmed : `${trimmed}/graphql`;
}

/** sabakan's `searchMachines` over HTTP with graphql-request, bounded in time and size. */
export class SabakanClient implements MachineSource {
  private readonly client: GraphQLClient;
  readonly endpoint: string;
  private readonly now: () => number;

  constructor(options: SabakanClientOptions) {
    this.endpoint = sabakanEndpoint(options.url);
    this.now = options.now ?? Date.now;
    this.client = new GraphQLClient(this.endpoint, { fetch: boundedFetch(options.maxResponseBytes, options.timeoutMs) });
  }

  async searchMachines(variables: MachineQueryVariables): Promise<SabakanMachine[]> {
    let data: { searchMachines?: unknown };
    try {
      data = await this.client.request<{ searchMachines?: unknown }>(SEARCH_MACHINES, { having: variables.having, notHaving: variables.notHaving });
    } catch (err) {
      throw new SabakanError(`sabakan at ${this.endpoint}: ${describe(err)}`);
    }
    if (!Array.isArray(data?.searchMachines)) throw new SabakanError(`sabakan at ${this.endpoint}: malformed answer: searchMachines is not a list`);
    const answeredAt = this.now();
    return data.searchMachines.map((m, i) => toMachine(m, i, this.endpoint, answeredAt));
  }
}

function describe(err: unknown): string {
  if (err instanceof ClientError) {
    const messages = (err.response.errors ?? []).map((e) => e.message);
    if (messages.length > 0) return `answered HTTP ${err.response.status} with errors: ${messages.join("; ")}`;
    const body = typeof err.response.body === "string" ? err.response.body.slice(0, 200) : "";
    return `answered HTTP ${err.response.status}${body ? `: ${body}` : ""}`;
  }
  if (err instanceof BoundExceededError) return err.message;
  if (err instanceof SyntaxError) return `the answer is not valid JSON (${err.message})`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return `unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
}

function toMachine(value: unknown, i: number, endpoint: string, answeredAt: number): SabakanMachine {
  const m = value as { spec?: Record<string, unknown>; status?: Record<string, unknown> } | null;
  const bad = (what: string) => new SabakanError(`sabakan at ${endpoint}: malformed answer: machine ${i}: ${what}`);
  const spec = m?.spec;
  const status = m?.status;
  if (!spec || !status) throw bad("spec or status missing");
  const { serial, rack, indexInRack, role, ipv4, bmc, labels, registerDate, retireDate } = spec as {
    serial: unknown;
    rack: unknown;
    indexInRack: unknown;
    role: unknown;
    ipv4: unknown;
    bmc: { bmcType?: unknown; ipv4?: unknown } | null;
    labels: unknown;
    registerDate: unknown;
    retireDate: unknown;
  };
  if (typeof serial !== "string") throw bad("spec.serial is not a string");
  if (!Number.isInteger(rack)) throw bad("spec.rack is not an integer");
  if (!Number.isInteger(indexInRack)) throw bad("spec.indexInRack is not an integer");
  if (!Array.isArray(ipv4) || !ipv4.every((a) => typeof a === "string")) throw bad("spec.ipv4 is not a list of addresses");
  if (typeof bmc?.bmcType !== "string") throw bad("spec.bmc.bmcType is not a string");
  const state = status["state"];
  if (!(MACHINE_STATES as readonly unknown[]).includes(state)) throw bad(`status.state ${JSON.stringify(state)} is not a machine state`);
  const duration = status["duration"];
  if (typeof duration !== "number" || !Number.isFinite(duration)) throw bad("status.duration is not a number");
  // Dated by sabakan's own measure of the state's age, so a clock difference between sabakan and kintsugi moves
  // nothing (docs/semantics/cluster-generation.md measures the control-plane grace with status.duration).
  const stateSince = answeredAt - duration * 1000;
  const date = (value: unknown, field: string): number => {
    const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) throw bad(`spec.${field} ${JSON.stringify(value)} is not a date`);
    return ms;
  };
  // A BMC address that is not an IPv4 literal costs only this machine's BMC commands their address, not the poll.
  const machineBmc = machineBmcOf(bmc.ipv4, bmc.bmcType);
  const labelList = labels ?? [];
  if (!Array.isArray(labelList) || !labelList.every((l) => typeof l?.name === "string" && typeof l?.value === "string")) {
    throw bad("spec.labels is not a list of {name, value}");
  }
  return {
    serial,
    rack: rack as number,
    indexInRack: indexInRack as number,
    role: typeof role === "string" ? role : "",
    ipv4,
    bmcType: bmc.bmcType,
    ...(machineBmc && { bmc: machineBmc }),
    state: state as MachineState,
    durationSeconds: duration,
    stateSince,
    registerDate: date(registerDate, "registerDate"),
    retireDate: date(retireDate, "retireDate"),
    labels: Object.fromEntries((labelList as Array<{ name: string; value: string }>).map((l) => [l.name, l.value])),
  };
}
