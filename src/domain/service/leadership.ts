/** One replica's key under the election prefix: which key, when etcd created it, and the name the replica gave. */
export interface ElectionCandidate {
  readonly key: string;
  /** The etcd revision at which the key was created; the lowest leads. */
  readonly createRevision: bigint;
  /** The replica name stored as the key's value, as that replica wrote it (untrusted text). */
  readonly name: string;
}

/** What a replica knows of its own candidacy: its key, the revision that created it, until when its lease holds. */
export interface OwnCandidacy {
  readonly key: string;
  readonly createRevision: bigint;
  /** The time (on the clock `now` is read from) until which the lease is certainly alive in etcd. */
  readonly leaseValidUntil: number;
}

/**
 * The candidate that leads: the one whose key etcd created first (lowest create revision), as in etcd's
 * `concurrency.Election`; null when there is none. Keys created in one transaction tie: the first key wins, so
 * every replica picks the same one.
 */
export function leaderOf(candidates: Iterable<ElectionCandidate>): ElectionCandidate | null {
  let leader: ElectionCandidate | null = null;
  for (const candidate of candidates) {
    const earlier = leader === null || candidate.createRevision < leader.createRevision;
    const tieFirst = leader !== null && candidate.createRevision === leader.createRevision && candidate.key < leader.key;
    if (earlier || tieFirst) leader = candidate;
  }
  return leader;
}

/**
 * Whether this replica leads at `now`: its key is among the candidates with the create revision it was given (a
 * key deleted and created again is someone else's), no key was created before it, and its lease is certainly still
 * alive. The last condition is what makes a replica that cannot reach etcd stop leading before its key expires.
 */
export function leadsAt(candidates: ReadonlyMap<string, ElectionCandidate>, own: OwnCandidacy | null, now: number): boolean {
  if (own === null || now >= own.leaseValidUntil) return false;
  const mine = candidates.get(own.key);
  if (mine === undefined || mine.createRevision !== own.createRevision) return false;
  return leaderOf(candidates.values()) === mine;
}

/**
 * Until when a lease is certainly alive in etcd after a grant or keep-alive that etcd answered with `ttlSeconds`:
 * counted from when the request was sent, which is before etcd renewed the lease, so the replica's deadline never
 * falls after etcd's.
 */
export function leaseValidUntil(sentAt: number, ttlSeconds: number): number {
  return sentAt + ttlSeconds * 1000;
}

/**
 * Whether this replica's key was deleted: the view has caught up with the revision that created it (so it would
 * show the key) and does not show it, or shows a key of that name created later.
 */
export function ownKeyDeleted(candidates: ReadonlyMap<string, ElectionCandidate>, viewRevision: bigint, own: OwnCandidacy): boolean {
  if (viewRevision < own.createRevision) return false;
  return candidates.get(own.key)?.createRevision !== own.createRevision;
}
