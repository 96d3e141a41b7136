import { hostname } from "node:os";
import { z } from "../support/zod.js";
import { DEFAULT_LEASE_TTL_SECONDS, LEASE_TTL_BOUNDS, type LeaderElectionConfig } from "./etcd-config.js";

// Shown wherever the leader is named, on every replica: printable, no spaces, short enough for a log line.
const replicaName = z.string().regex(/^[^\s\u0000-\u001f\u007f]{1,128}$/, {
  error: "must be 1-128 characters without spaces or control characters",
});

/** The `leader_election` section as written: kintsugi's own knobs of the election on etcd. */
export const leaderElectionSection = z.strictObject({
  lease_ttl_seconds: z.int().min(LEASE_TTL_BOUNDS.min).max(LEASE_TTL_BOUNDS.max).default(DEFAULT_LEASE_TTL_SECONDS),
  replica_name: replicaName.optional(),
});

export type LeaderElectionSection = z.output<typeof leaderElectionSection>;

/** Renames the validated section; the replica is named after the host unless the section names it. */
export function toLeaderElectionConfig(section: LeaderElectionSection | undefined): LeaderElectionConfig {
  return {
    leaseTtlSeconds: section?.lease_ttl_seconds ?? DEFAULT_LEASE_TTL_SECONDS,
    replicaName: section?.replica_name ?? hostname(),
  };
}
