import { REPLICAS, REPAIR, type FaultCluster } from "./fault-cluster.js";
import type { FaultyMachines } from "./command-log.js";
import type { EntryView, HistoryRecordView } from "./run-history.js";

/** The machines the suite repairs, over and over. */
export const ADDRESSES = ["198.51.100.1", "198.51.100.2", "198.51.100.3"] as const;

const REQUEST_TIMEOUT_MS = 3000;
const FEED_EVERY_MS = 250;

/**
 * Asks the replicas in turn (the one that answered last first) until one answers `query` with data; a replica that
 * is killed, stopped or cut off fails within REQUEST_TIMEOUT_MS and the next is asked.
 */
export class ReplicaClient {
  private preferred = 0;

  constructor(private readonly cluster: FaultCluster) {}

  async data<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const errors: string[] = [];
    for (let i = 0; i < REPLICAS.length; i++) {
      const at = (this.preferred + i) % REPLICAS.length;
      const name = REPLICAS[at] as string;
      if (this.cluster.exited(name)) continue;
      try {
        const res = await fetch(`${this.cluster.url(name)}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query, variables }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = (await res.json()) as { data?: T; errors?: unknown };
        if (body.data && !body.errors) {
          this.preferred = at;
          return body.data;
        }
        errors.push(`${name}: ${JSON.stringify(body.errors)}`);
      } catch (err) {
        errors.push(`${name}: ${(err as Error).message}`);
      }
    }
    throw new Error(`no replica answered: ${errors.join("; ")}`);
  }

  /** Every entry with its whole history; with the records' `replica` where the API has that field. */
  async entries(): Promise<EntryView[]> {
    const hasReplica = await this.hasReplicaField();
    const { searchRepairEntries } = await this.data<{
      searchRepairEntries: Array<{
        index: string;
        address: string;
        status: string;
        history: Array<Omit<HistoryRecordView, "time" | "replica"> & { time: string; replica?: string | null }>;
      }>;
    }>(`{ searchRepairEntries { index address status history { time kind reason detail step status actor ${hasReplica ? "replica" : ""} } } }`);
    return searchRepairEntries.map((e) => ({
      index: Number(e.index),
      address: e.address,
      status: e.status,
      history: e.history.map((h) => ({ ...h, time: Date.parse(h.time), replica: h.replica ?? null })),
    }));
  }

  /** Whether the API serves the history records' `replica` field. */
  async hasReplicaField(): Promise<boolean> {
    const fields = await this.data<{ __type: { fields: Array<{ name: string }> } | null }>(`{ __type(name: "RepairHistoryRecord") { fields { name } } }`);
    return fields.__type?.fields.some((f) => f.name === "replica") ?? false;
  }
}

/**
 * Keeps every machine under repair: once a machine has no unfinished entry, after a pause of 0-3 s drawn from
 * `random` (so that the machines drift apart and a fault finds them at different steps), it is made unhealthy and
 * a new entry is added for it (through whichever replica answers), until `stop()`.
 */
export class Workload {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly dueAt = new Map<string, number>();

  constructor(
    private readonly client: ReplicaClient,
    private readonly machines: FaultyMachines,
    private readonly random: () => number,
  ) {}

  start(): void {
    this.loop ??= this.feed();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async feed(): Promise<void> {
    while (!this.stopped) {
      try {
        const { searchRepairEntries } = await this.client.data<{ searchRepairEntries: Array<{ address: string }> }>(
          `{ searchRepairEntries(having: { statuses: [QUEUED, PROCESSING] }) { address } }`,
        );
        const busy = new Set(searchRepairEntries.map((e) => e.address));
        for (const address of busy) this.dueAt.delete(address);
        for (const address of ADDRESSES.filter((a) => !busy.has(a))) {
          const due = this.dueAt.get(address) ?? Date.now() + Math.floor(this.random() * 3000);
          this.dueAt.set(address, due);
          if (this.stopped || Date.now() < due) continue;
          this.machines.setHealthy(address, false);
          await this.client.data(
            `mutation($a: IPAddress!) { addRepairEntry(operation: "${REPAIR.operation}", machineType: "${REPAIR.machineType}", address: $a) { index } }`,
            {
              a: address,
            },
          );
          this.dueAt.delete(address);
        }
      } catch {
        // etcd or every replica away for now: the next round tries again
      }
      await new Promise((resolve) => setTimeout(resolve, FEED_EVERY_MS));
    }
  }
}
