import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { leaderOf, leadsAt, leaseValidUntil, ownKeyDeleted, type ElectionCandidate, type OwnCandidacy } from "../../../src/domain/service/leadership.js";

const NOW = 1_000_000;
const P = "/kintsugi/leader/";
const candidate = (id: string, createRevision: bigint, name = `replica-${id}`): ElectionCandidate => ({ key: `${P}${id}`, createRevision, name });
const view = (...candidates: ElectionCandidate[]) => new Map(candidates.map((c) => [c.key, c]));
const own = (id: string, createRevision: bigint, leaseValidUntil = NOW + 5000): OwnCandidacy => ({ key: `${P}${id}`, createRevision, leaseValidUntil });

describe("leaderOf: the key created first leads", () => {
  const cases: { name: string; candidates: ElectionCandidate[]; leader: string | null }[] = [
    { name: "no candidates: no leader", candidates: [], leader: null },
    { name: "one candidate leads", candidates: [candidate("a", 7n)], leader: "a" },
    { name: "the lowest create revision leads, whatever the order", candidates: [candidate("c", 30n), candidate("a", 12n), candidate("b", 20n)], leader: "a" },
    { name: "revisions compare as numbers, not as text", candidates: [candidate("a", 100n), candidate("b", 99n)], leader: "b" },
    { name: "revisions past 2^53 compare exactly", candidates: [candidate("a", 9007199254740993n), candidate("b", 9007199254740992n)], leader: "b" },
    { name: "a tie goes to the first key by name", candidates: [candidate("b", 5n), candidate("a", 5n)], leader: "a" },
  ];
  for (const { name, candidates, leader } of cases) {
    it(name, () => {
      assert.equal(leaderOf(candidates)?.key ?? null, leader === null ? null : `${P}${leader}`);
    });
  }
});

describe("leadsAt: this replica leads only with its own key first and its lease alive", () => {
  const cases: { name: string; candidates: ElectionCandidate[]; own: OwnCandidacy | null; leads: boolean }[] = [
    { name: "not campaigning", candidates: [candidate("a", 1n)], own: null, leads: false },
    { name: "alone, lease alive", candidates: [candidate("a", 1n)], own: own("a", 1n), leads: true },
    { name: "first of three", candidates: [candidate("b", 9n), candidate("a", 3n), candidate("c", 4n)], own: own("a", 3n), leads: true },
    {
      name: "second of three: waits for its predecessor",
      candidates: [candidate("b", 9n), candidate("a", 3n), candidate("c", 4n)],
      own: own("c", 4n),
      leads: false,
    },
    { name: "first, but the lease expires exactly now", candidates: [candidate("a", 1n)], own: own("a", 1n, NOW), leads: false },
    { name: "first, but the lease expired before now", candidates: [candidate("a", 1n)], own: own("a", 1n, NOW - 1), leads: false },
    { name: "its key is not (yet) in the view", candidates: [], own: own("a", 1n), leads: false },
    { name: "a key of the same name created again later is not its own", candidates: [candidate("a", 8n)], own: own("a", 1n), leads: false },
  ];
  for (const { name, candidates, own: mine, leads } of cases) {
    it(name, () => {
      assert.equal(leadsAt(view(...candidates), mine, NOW), leads);
    });
  }
});

describe("ownKeyDeleted: only a view that has caught up can tell", () => {
  const cases: { name: string; candidates: ElectionCandidate[]; viewRevision: bigint; deleted: boolean }[] = [
    { name: "the view has not reached the key's creation yet", candidates: [], viewRevision: 4n, deleted: false },
    { name: "the view shows the key", candidates: [candidate("a", 5n)], viewRevision: 9n, deleted: false },
    { name: "the view is past the creation and lacks the key", candidates: [candidate("b", 6n)], viewRevision: 5n, deleted: true },
    { name: "the view shows the name created again later", candidates: [candidate("a", 7n)], viewRevision: 7n, deleted: true },
  ];
  for (const { name, candidates, viewRevision, deleted } of cases) {
    it(name, () => {
      assert.equal(ownKeyDeleted(view(...candidates), viewRevision, own("a", 5n)), deleted);
    });
  }
});

describe("leaseValidUntil counts the TTL from when the request was sent", () => {
  const cases = [
    { name: "a 10 s lease", sentAt: NOW, ttl: 10, until: NOW + 10_000 },
    { name: "a 2 s lease sent earlier", sentAt: NOW - 500, ttl: 2, until: NOW + 1500 },
    { name: "etcd answered TTL 0 (the lease is gone)", sentAt: NOW, ttl: 0, until: NOW },
  ];
  for (const { name, sentAt, ttl, until } of cases) {
    it(name, () => {
      assert.equal(leaseValidUntil(sentAt, ttl), until);
    });
  }
});
