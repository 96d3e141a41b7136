import { describe, it } from "node:test";
import type { RepairObservation } from "../../../src/domain/queue/repair-plan.js";
import { SEC, T, assertDecision, entry, machineHold as hold, snapshot, starts, watched, withHolds, type DecisionCase } from "./repair-decision-support.js";

const observed = (over: Partial<RepairObservation>) => over;

const CASES: DecisionCase[] = [
  { name: "with no holds, a queued entry starts", snapshot: withHolds(snapshot([entry(1)])), want: [starts(1)], held: {} },
  {
    name: "a held machine's queued entry does not start, and says who holds it, why and until when",
    snapshot: withHolds(snapshot([entry(1)]), hold("10.0.0.1", { until: T + 3600 * SEC })),
    want: [],
    held: { 1: /^held by alice: vendor swap until 2026-11-22T07:00:00\.500Z$/ },
    wakeAt: T + 3600 * SEC,
  },
  {
    name: "a held queued entry takes no slot: the next one starts",
    snapshot: withHolds(snapshot([entry(1), entry(2)], {}, { max: 1 }), hold("10.0.0.1")),
    want: [starts(2)],
    held: { 1: /^held by alice/ },
  },
  { name: "a hold on another machine changes nothing", snapshot: withHolds(snapshot([entry(1)]), hold("10.0.0.9")), want: [starts(1)], held: {} },
  {
    name: "a held processing entry does not move on to its next step",
    snapshot: withHolds(snapshot([watched(1)]), hold("10.0.0.1")),
    want: [],
    held: { 1: /^held by/ },
  },
  {
    name: "a held processing entry keeps its slot: a queued entry does not start beside it beyond the limit",
    snapshot: withHolds(snapshot([watched(1), entry(2)], {}, { max: 1 }), hold("10.0.0.1")),
    want: [],
    held: { 1: /^held by/, 2: /^max_concurrent_repairs \(1\) reached; entry 1 is held mid-repair and keeps its slot until its hold ends$/ },
  },
  {
    name: "a slot wait names the held entries that keep their slots, not the others in progress",
    snapshot: withHolds(
      snapshot([watched(1), watched(2), watched(3), entry(4)], { 2: observed({ job: "repair-command" }) }, { max: 3 }),
      hold("10.0.0.1"),
      hold("10.0.0.3"),
    ),
    want: [],
    held: {
      1: /^held by/,
      3: /^held by/,
      4: /^max_concurrent_repairs \(3\) reached; entries 1, 3 are held mid-repair and keep their slots until their holds end$/,
    },
  },
  {
    name: "a slot wait names five held entries and counts the rest",
    snapshot: withHolds(
      snapshot([1, 2, 3, 4, 5, 6, 7].map((i) => watched(i)).concat(entry(8)), {}, { max: 7 }),
      ...[1, 2, 3, 4, 5, 6, 7].map((i) => hold(`10.0.0.${i}`)),
    ),
    want: [],
    held: {
      ...Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((i) => [i, /^held by/])),
      8: /^max_concurrent_repairs \(7\) reached; entries 1, 2, 3, 4, 5 and 2 more are held mid-repair and keep their slots until their holds end$/,
    },
  },
  {
    name: "a held queued entry keeps no slot, so the slot wait does not name it",
    snapshot: withHolds(snapshot([watched(1), entry(2), entry(3)], { 1: observed({ job: "repair-command" }) }, { max: 1 }), hold("10.0.0.2")),
    want: [],
    held: { 2: /^held by/, 3: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a held entry whose command runs is left to finish it",
    snapshot: withHolds(
      snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 61 * SEC })], {
        1: observed({ job: "repair-command", healthy: undefined }),
      }),
      hold("10.0.0.1"),
    ),
    want: [],
    held: { 1: /^held by/ },
  },
  {
    name: "a held entry found healthy succeeds (a hold stops commands, never a success)",
    snapshot: withHolds(snapshot([watched(1)], { 1: { healthy: true } }), hold("10.0.0.1")),
    want: [{ index: 1, states: [], effect: "success-command" }],
    held: {},
  },
  {
    name: "without the hold, the same entry runs its success command",
    snapshot: withHolds(snapshot([watched(1)], { 1: { healthy: true } })),
    want: [{ index: 1, states: [], effect: "success-command" }],
    held: {},
  },
  {
    name: "a held drain past its eviction timeout still backs off",
    snapshot: withHolds(snapshot([entry(1, { status: "processing", stepStatus: "draining", lastTransitionTime: T - 601 * SEC })]), hold("10.0.0.1")),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }],
    held: { 1: /^held by/ },
  },
  {
    name: "a deleted entry of a held machine is still dequeued",
    snapshot: withHolds(snapshot([entry(1, { deleted: true })]), hold("10.0.0.1")),
    want: [{ index: 1, states: [], effect: "dequeue" }],
    held: {},
  },
  {
    name: "an annotation hold holds too",
    snapshot: withHolds(
      snapshot([entry(1)]),
      hold("10.0.0.1", { source: "annotation", setBy: "annotation kintsugi.cybozu.io/hold on Node n1", setAt: null, reason: "tool" }),
    ),
    want: [],
    held: { 1: /^held by annotation kintsugi\.cybozu\.io\/hold on Node n1: tool$/ },
  },
];

describe("decideRepairActions: machine holds", () => {
  for (const c of CASES) it(c.name, () => void assertDecision(c));
});
