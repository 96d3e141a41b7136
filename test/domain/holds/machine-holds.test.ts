import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  activeHolds,
  annotationHolds,
  describeHold,
  expiredHolds,
  HOLD_ANNOTATION,
  holdsFromAnnotations,
  isHoldActive,
  MAX_HOLD_REASON_LENGTH,
  MAX_MACHINE_HOLDS,
  validateHoldRequest,
  type HoldRequest,
  type StoredMachineHold,
} from "../../../src/domain/holds/machine-holds.js";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const MIN = 60_000;
const stored = (address: string, over: Partial<StoredMachineHold> = {}): StoredMachineHold => ({
  address,
  reason: "firmware test",
  setBy: "alice",
  setAt: NOW - 10 * MIN,
  until: null,
  ...over,
});
const node = (name: string, address: string | null, annotations: Record<string, string> = {}) => ({ name, address, annotations });

describe("isHoldActive", () => {
  const cases: Array<{ name: string; until: number | null; want: boolean }> = [
    { name: "without until, it holds", until: null, want: true },
    { name: "before until, it holds", until: NOW + 1, want: true },
    { name: "at until, it has ended", until: NOW, want: false },
    { name: "after until, it has ended", until: NOW - MIN, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(isHoldActive({ until: c.until }, NOW), c.want));
});

describe("holdsFromAnnotations", () => {
  const cases: Array<{ name: string; nodes: ReturnType<typeof node>[]; want: Array<[string, string]> }> = [
    { name: "no annotation, no hold", nodes: [node("n1", "10.0.0.1", { other: "x" })], want: [] },
    {
      name: "the annotation's value is the reason",
      nodes: [node("n1", "10.0.0.1", { [HOLD_ANNOTATION]: "vendor ticket 42" })],
      want: [["10.0.0.1", "vendor ticket 42"]],
    },
    { name: "an empty annotation still holds", nodes: [node("n1", "10.0.0.1", { [HOLD_ANNOTATION]: " " })], want: [["10.0.0.1", "(no reason given)"]] },
    { name: "a node without an address holds nothing", nodes: [node("n1", null, { [HOLD_ANNOTATION]: "x" })], want: [] },
    {
      name: "a long reason is cut",
      nodes: [node("n1", "10.0.0.1", { [HOLD_ANNOTATION]: "r".repeat(MAX_HOLD_REASON_LENGTH + 5) })],
      want: [["10.0.0.1", "r".repeat(MAX_HOLD_REASON_LENGTH)]],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const holds = holdsFromAnnotations(c.nodes);
      assert.deepEqual(
        holds.map((h) => [h.address, h.reason]),
        c.want,
      );
      for (const h of holds) assert.deepEqual([h.source, h.setAt, h.until, h.setBy], ["annotation", null, null, `annotation ${HOLD_ANNOTATION} on Node n1`]);
    });
  }
});

describe("annotationHolds", () => {
  it("holds a held Node by its name and each canonical InternalIP, and nothing of a Node without the annotation", () => {
    const nodes: Parameters<typeof annotationHolds>[0] = [
      { name: "n1", internalIPs: ["::ffff:10.0.0.1", "fd00::1", "bogus"], annotations: { [HOLD_ANNOTATION]: "x" } },
      { name: "n2", internalIPs: ["10.0.0.2"], annotations: {} },
    ];
    assert.deepEqual(
      annotationHolds(nodes).map((h) => h.address),
      ["n1", "10.0.0.1", "fd00::1"],
    );
  });
});

describe("activeHolds", () => {
  const annotated = holdsFromAnnotations([node("n2", "10.0.0.2", { [HOLD_ANNOTATION]: "from a tool" })]);
  const cases: Array<{ name: string; stored: StoredMachineHold[]; want: Array<[string, string, string]> }> = [
    { name: "nothing held", stored: [], want: [["10.0.0.2", "annotation", "from a tool"]] },
    { name: "an expired stored hold is not active", stored: [stored("10.0.0.1", { until: NOW })], want: [["10.0.0.2", "annotation", "from a tool"]] },
    {
      name: "a stored hold before its expiry is active",
      stored: [stored("10.0.0.1", { until: NOW + MIN })],
      want: [
        ["10.0.0.2", "annotation", "from a tool"],
        ["10.0.0.1", "api", "firmware test"],
      ],
    },
    { name: "a stored hold is shown over the same machine's annotation", stored: [stored("10.0.0.2")], want: [["10.0.0.2", "api", "firmware test"]] },
    {
      name: "the annotation holds once the stored hold expires",
      stored: [stored("10.0.0.2", { until: NOW - 1 })],
      want: [["10.0.0.2", "annotation", "from a tool"]],
    },
  ];
  for (const c of cases) {
    it(c.name, () =>
      assert.deepEqual(
        [...activeHolds(c.stored, annotated, NOW).values()].map((h) => [h.address, h.source, h.reason]),
        c.want,
      ),
    );
  }
  it("expiredHolds lists exactly the stored holds that have ended", () => {
    assert.deepEqual(
      expiredHolds([stored("10.0.0.1", { until: NOW }), stored("10.0.0.2", { until: NOW + 1 }), stored("10.0.0.3")], NOW).map((h) => h.address),
      ["10.0.0.1"],
    );
  });
});

describe("describeHold", () => {
  it("says who, why and until when", () => {
    assert.equal(describeHold({ ...stored("10.0.0.1", { until: NOW + MIN }), source: "api" }), "held by alice: firmware test until 2026-11-23T12:01:00.000Z");
  });
  it("says nothing of an end when there is none, and escapes control characters", () => {
    assert.equal(describeHold({ ...stored("10.0.0.1", { reason: "a\x1b[2Jb", setBy: "bob" }), source: "api" }), "held by bob: a\\x1b[2Jb");
  });
});

describe("validateHoldRequest", () => {
  const request = (over: Partial<HoldRequest> = {}): HoldRequest => ({ address: "10.0.0.1", reason: "firmware test", setBy: "alice", until: null, ...over });
  const full = Array.from({ length: MAX_MACHINE_HOLDS }, (_, i) => stored(`10.1.${i >> 8}.${i & 255}`));
  const cases: Array<{ name: string; request: HoldRequest; stored?: StoredMachineHold[]; want: StoredMachineHold | RegExp }> = [
    {
      name: "a valid hold is stored with now as setAt",
      request: request({ until: NOW + MIN }),
      want: { address: "10.0.0.1", reason: "firmware test", setBy: "alice", setAt: NOW, until: NOW + MIN },
    },
    {
      name: "the address is kept in canonical form",
      request: request({ address: "::ffff:10.0.0.1" }),
      want: { address: "10.0.0.1", reason: "firmware test", setBy: "alice", setAt: NOW, until: null },
    },
    {
      name: "the reason is trimmed",
      request: request({ reason: "  x  " }),
      want: { address: "10.0.0.1", reason: "x", setBy: "alice", setAt: NOW, until: null },
    },
    { name: "not an address", request: request({ address: "-rf" }), want: /^address: invalid IP address: "-rf"$/ },
    { name: "an empty reason", request: request({ reason: "  " }), want: /^reason: must not be empty$/ },
    { name: "a reason too long", request: request({ reason: "r".repeat(MAX_HOLD_REASON_LENGTH + 1) }), want: /^reason: 513 characters, at most 512 allowed$/ },
    { name: "an until in the past", request: request({ until: NOW - 1 }), want: /^until: must be after now/ },
    { name: "an until that is now", request: request({ until: NOW }), want: /^until: must be after now/ },
    { name: "a new machine beyond the limit", request: request(), stored: full, want: /^too many holds: at most 1000/ },
    {
      name: "a held machine may be held again at the limit (it replaces its hold)",
      request: request({ address: full[0]!.address, reason: "new" }),
      stored: full,
      want: { address: full[0]!.address, reason: "new", setBy: "alice", setAt: NOW, until: null },
    },
    {
      name: "expired holds do not count against the limit",
      request: request(),
      stored: full.map((h) => ({ ...h, until: NOW })),
      want: { address: "10.0.0.1", reason: "firmware test", setBy: "alice", setAt: NOW, until: null },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = validateHoldRequest(c.request, c.stored ?? [], NOW);
      if (c.want instanceof RegExp) {
        assert.equal(result.ok, false);
        if (!result.ok) assert.match(result.message, c.want);
      } else assert.deepEqual(result, { ok: true, hold: c.want });
    });
  }
});
