import type { Etcd3 } from "etcd3";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import { LeaderElection } from "../../src/ha/leader-election.js";
import { etcdClientFor } from "../../src/adapters/etcd-client.js";
import { until } from "./until.js";

/** A replica's part in a leader election, on a client of its own, with what happened to it in order. */
export interface ElectionReplica {
  readonly name: string;
  readonly client: Etcd3;
  readonly election: LeaderElection;
  /** "elected" and "deposed: <reason>", in the order the election announced them. */
  readonly events: string[];
  /** Resigns (as far as its client still can) and closes its client. */
  stop(): Promise<void>;
}

let prefixes = 0;

/** A key prefix no other test of this process uses, so elections of different tests never meet. */
export function testPrefix(): string {
  prefixes += 1;
  return `/kintsugi-test-${process.pid}-${prefixes}/`;
}

/**
 * Starts `name`'s election on `endpoints` under `prefix` (the election lives in `<prefix>leader/`), with a 1 s
 * deadline per etcd call and 100 ms between retries; `clock` replaces the monotonic clock.
 */
export function startReplica(
  endpoints: readonly string[],
  prefix: string,
  name: string,
  leaseTtlSeconds: number,
  options: { clock?: () => number } = {},
): ElectionReplica {
  const client = etcdClientFor({ ...DEFAULT_ETCD_CONFIG, endpoints, prefix, timeoutMs: 1000 });
  const election = new LeaderElection({ client, prefix, replicaName: name, leaseTtlSeconds, retryMs: 100, ...options });
  const events: string[] = [];
  election.onElected(() => events.push("elected"));
  election.onDeposed((reason) => events.push(`deposed: ${reason}`));
  election.start();
  let stopped: Promise<void> | null = null;
  return {
    name,
    client,
    election,
    events,
    stop: () => (stopped ??= election.stop().finally(() => client.close())),
  };
}

/** Waits until exactly one of `replicas` leads and every one of them names it as the leader; returns it. */
export async function soleLeader(replicas: readonly ElectionReplica[], what = "one replica leads and all agree", timeoutMs?: number): Promise<ElectionReplica> {
  const state = () => {
    const leaders = replicas.filter((r) => r.election.isLeader());
    const named = replicas.map((r) => r.election.leader());
    return { leaders: leaders.map((r) => r.name), named };
  };
  const { leaders } = await until(what, state, (s) => s.leaders.length === 1 && s.named.every((n) => n === s.leaders[0]), timeoutMs);
  return replicas.find((r) => r.name === leaders[0]) as ElectionReplica;
}
