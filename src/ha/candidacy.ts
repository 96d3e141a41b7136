import { CompareResult, CompareTarget, type Etcd3 } from "etcd3";
import { LeaseKeeper } from "./lease-keeper.js";

/** This replica in the election: its key (attached to its lease) and the revision that created the key. */
export interface Candidacy {
  readonly key: string;
  readonly createRevision: bigint;
  readonly lease: LeaseKeeper;
}

export interface EnterOptions {
  readonly client: Etcd3;
  /** Where the candidates' keys live, ending in "/": `<prefix>leader/`. */
  readonly electionPrefix: string;
  readonly replicaName: string;
  readonly ttlSeconds: number;
  readonly clock: () => number;
  /** Called once when the lease is lost (see {@link LeaseKeeper}). */
  readonly onLeaseLost: (reason: string) => void;
}

/**
 * Joins the election as etcd's `concurrency.Election.Campaign` does: grants a lease and creates the key
 * `<electionPrefix><lease id in hex>` attached to it, holding the replica name. The key is only created if it does
 * not exist; a retried request that finds it already created (the first attempt's answer was lost) takes the
 * revision that created it. On failure the lease is revoked again.
 */
export async function enterElection(options: EnterOptions): Promise<Candidacy> {
  const { client } = options;
  const lease = await LeaseKeeper.grant({ client, ttlSeconds: options.ttlSeconds, clock: options.clock, onLost: options.onLeaseLost });
  try {
    const key = `${options.electionPrefix}${BigInt(lease.id).toString(16)}`;
    const keyBytes = Buffer.from(key);
    const result = await client.kv.txn({
      compare: [{ key: keyBytes, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
      success: [{ request_put: { key: keyBytes, value: Buffer.from(options.replicaName), lease: lease.id } }],
      failure: [{ request_range: { key: keyBytes } }],
    });
    const existing = result.succeeded ? null : result.responses[0]?.response_range.kvs[0];
    if (!result.succeeded && existing === undefined) throw new Error(`the election key ${key} vanished while it was created`);
    return { key, createRevision: BigInt(existing ? existing.create_revision : result.header.revision), lease };
  } catch (error) {
    await lease.revoke().catch(() => undefined);
    throw error;
  }
}

/**
 * Leaves the election: deletes the key (if it is still the one this candidacy created), so that the next candidate sees it go at once, and revokes the lease.
 * Either may fail (etcd unreachable, client closed): the lease then expires after its TTL, which deletes the key.
 */
export async function withdraw(client: Etcd3, candidacy: Candidacy): Promise<void> {
  candidacy.lease.stop();
  const key = Buffer.from(candidacy.key);
  await client.kv
    .txn({
      compare: [{ key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: candidacy.createRevision.toString() }],
      success: [{ request_delete_range: { key } }],
    })
    .catch(() => undefined);
  await candidacy.lease.revoke().catch(() => undefined);
}
