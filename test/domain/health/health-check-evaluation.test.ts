import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseMaxUnhealthy, parseUnhealthyRange, type HealthCheckConfig } from "../../../src/domain/health/health-check-config.js";
import { evaluateHealthCheck, evaluateTarget, type CheckedNode } from "../../../src/domain/health/health-check-evaluation.js";

const NOW = Date.UTC(2026, 10, 22, 7, 0, 0);
const S = 1000;
const RULES = [
  { type: "Ready", status: "Unknown", timeoutSeconds: 300 },
  { type: "Ready", status: "False", timeoutSeconds: 300 },
];

const node = (name: string, ready: "True" | "False" | "Unknown", sinceSecondsAgo = 0, over: Partial<CheckedNode> = {}): CheckedNode => ({
  name,
  internalIPs: [`10.0.0.${name.replace(/\D/g, "") || 1}`],
  labels: { role: "worker" },
  annotations: {},
  conditions: [
    { type: "Ready", status: ready, lastTransitionTime: NOW - sinceSecondsAgo * S },
    { type: "MemoryPressure", status: "True", lastTransitionTime: NOW - 9999 * S },
  ],
  ...over,
});

const check = (over: Partial<HealthCheckConfig> = {}): HealthCheckConfig => ({
  name: "workers",
  selector: { matchLabels: { role: "worker" } },
  unhealthyConditions: RULES,
  maxUnhealthy: { kind: "percent", value: 100 },
  unhealthyRange: null,
  operation: "node-not-ready",
  machineType: { from: "sabakan" },
  paused: false,
  ...over,
});

describe("evaluateTarget", () => {
  const cases: Array<[string, CheckedNode, string, number | null]> = [
    ["Ready=True is healthy", node("n1", "True", 10_000), "healthy", null],
    ["Ready=Unknown just now is pending, next check 1 s past the timeout", node("n1", "Unknown", 0), "pending", NOW + 301 * S],
    ["Ready=Unknown 1 s before the timeout is pending", node("n1", "Unknown", 299), "pending", NOW + 2 * S],
    ["Ready=Unknown exactly at the timeout is still pending (strict)", node("n1", "Unknown", 300), "pending", NOW + 1 * S],
    ["Ready=Unknown 1 ms past the timeout is unhealthy", node("n1", "Unknown", 300.001), "unhealthy", null],
    ["Ready=False past the timeout is unhealthy", node("n1", "False", 3600), "unhealthy", null],
    ["a condition that is not configured does not count (MemoryPressure for hours)", node("n1", "True", 1), "healthy", null],
    ["a node without the condition is healthy", node("n1", "True", 0, { conditions: [] }), "healthy", null],
  ];
  for (const [name, n, state, next] of cases) {
    it(name, () => {
      const t = evaluateTarget(n, RULES, NOW);
      assert.equal(t.state, state);
      assert.equal(t.nextCheckAt, next);
    });
  }

  it("reports the failing rule and since when", () => {
    const t = evaluateTarget(node("n1", "False", 600), RULES, NOW);
    assert.deepEqual({ rule: t.rule, since: t.since, address: t.address }, { rule: RULES[1], since: NOW - 600 * S, address: "10.0.0.1" });
  });
});

describe("evaluateTarget: a Node CKE is rebooting waits out wait-seconds-to-repair-rebooting", () => {
  // Timeout 300 s, wait 900 s: a bare-metal boot outlasts the check's timeout.
  const REBOOT = { waitSeconds: 900, cordonedByAnnotation: "kintsugi.cybozu.io/cordoned-by" };
  const rebooting = { annotations: { "cke.cybozu.com/reboot": "true" } };
  const cases: Array<{ name: string; node: CheckedNode; reboot?: typeof REBOOT; state: string; next: number | null }> = [
    {
      name: "rebooting, NotReady past the timeout but within the wait: pending until the wait ends",
      node: node("n1", "Unknown", 600, rebooting),
      reboot: REBOOT,
      state: "pending",
      next: NOW + 300 * S,
    },
    {
      name: "rebooting, NotReady 1 ms short of the wait: still pending",
      node: node("n1", "Unknown", 899.999, rebooting),
      reboot: REBOOT,
      state: "pending",
      next: NOW + 0.001 * S,
    },
    {
      name: "rebooting, NotReady exactly as long as the wait: unhealthy (strict, as the sabakan trigger)",
      node: node("n1", "Unknown", 900, rebooting),
      reboot: REBOOT,
      state: "unhealthy",
      next: null,
    },
    { name: "rebooting, NotReady past the wait: unhealthy", node: node("n1", "False", 3600, rebooting), reboot: REBOOT, state: "unhealthy", next: null },
    {
      name: "rebooting, within the timeout: pending until the timeout, as any node",
      node: node("n1", "Unknown", 100, rebooting),
      reboot: REBOOT,
      state: "pending",
      next: NOW + 201 * S,
    },
    {
      name: "rebooting, wait 0 (the default): unhealthy at the timeout, as any node",
      node: node("n1", "Unknown", 600, rebooting),
      reboot: { ...REBOOT, waitSeconds: 0 },
      state: "unhealthy",
      next: null,
    },
    { name: "not rebooting: unhealthy at the timeout", node: node("n1", "Unknown", 600), reboot: REBOOT, state: "unhealthy", next: null },
    {
      name: 'the mark other than "true": not rebooting',
      node: node("n1", "Unknown", 600, { annotations: { "cke.cybozu.com/reboot": "false" } }),
      reboot: REBOOT,
      state: "unhealthy",
      next: null,
    },
    {
      name: "the mark on a Node kintsugi cordoned: kintsugi's own drain, not CKE's reboot",
      node: node("n1", "Unknown", 600, { annotations: { "cke.cybozu.com/reboot": "true", "kintsugi.cybozu.io/cordoned-by": "entry 3" } }),
      reboot: REBOOT,
      state: "unhealthy",
      next: null,
    },
    { name: "rebooting, but Ready=True: healthy", node: node("n1", "True", 600, rebooting), reboot: REBOOT, state: "healthy", next: null },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = evaluateTarget(c.node, RULES, NOW, c.reboot);
      assert.deepEqual({ state: t.state, next: t.nextCheckAt }, { state: c.state, next: c.next });
    });
  }

  it("a check looks again when the first rebooting target's wait ends, and counts it against the budget while it waits", () => {
    const e = evaluateHealthCheck(
      check({ maxUnhealthy: { kind: "count", value: 0 } }),
      [node("n1", "Unknown", 600, rebooting), node("n2", "True")],
      NOW,
      REBOOT,
    );
    assert.deepEqual(
      e.targets.map((t) => t.state),
      ["pending", "healthy"],
    );
    assert.equal(e.nextCheckAt, NOW + 300 * S);
    assert.equal(e.gate.open, false);
  });
});

describe("evaluateTarget: the target's address (its first InternalIP)", () => {
  const cases: Array<[string, string[], string | null, string | null]> = [
    ["an IPv4 address", ["10.0.0.3"], "10.0.0.3", null],
    ["an IPv4-mapped IPv6 address, as its IPv4 address", ["::ffff:10.0.0.3"], "10.0.0.3", null],
    ["an IPv6 address, canonical", ["FD00:0:0:0:0:0:0:1"], "fd00::1", null],
    ["none", [], null, "the node has no InternalIP"],
    ["an option", ["-rf", "10.0.0.3"], null, 'the node\'s first InternalIP is not an address: invalid IP address: "-rf"'],
    [
      "control characters, escaped in the reason",
      ["\u001b[2J10.0.0.3"],
      null,
      'the node\'s first InternalIP is not an address: invalid IP address: "\\x1b[2J10.0.0.3"',
    ],
    ["empty", [""], null, 'the node\'s first InternalIP is not an address: invalid IP address: ""'],
  ];
  for (const [name, internalIPs, address, addressProblem] of cases) {
    it(name, () => {
      const t = evaluateTarget(node("n1", "False", 600, { internalIPs }), RULES, NOW);
      assert.deepEqual({ address: t.address, addressProblem: t.addressProblem }, { address, addressProblem });
    });
  }
});

describe("evaluateHealthCheck", () => {
  it("counts only selected nodes, leaves out nodes annotated to skip remediation, and orders targets by name", () => {
    const e = evaluateHealthCheck(
      check(),
      [
        node("n3", "True"),
        node("n1", "Unknown", 400),
        node("cp1", "Unknown", 400, { labels: { role: "control-plane" } }),
        node("n2", "False", 400, { annotations: { "kintsugi.cybozu.io/skip-remediation": "" } }),
      ],
      NOW,
    );
    assert.deepEqual(
      e.targets.map((t) => [t.node, t.state]),
      [
        ["n1", "unhealthy"],
        ["n3", "healthy"],
      ],
    );
    assert.deepEqual([e.expected, e.currentHealthy, e.unhealthyCount], [2, 1, 1]);
  });

  it("the next check is the earliest of the pending targets'", () => {
    const e = evaluateHealthCheck(check(), [node("n1", "Unknown", 100), node("n2", "Unknown", 250), node("n3", "False", 10)], NOW);
    assert.equal(e.nextCheckAt, NOW + 51 * S);
    assert.equal(evaluateHealthCheck(check(), [node("n1", "True")], NOW).nextCheckAt, null);
  });

  it("pending targets count against the budget", () => {
    const e = evaluateHealthCheck(
      check({ maxUnhealthy: { kind: "count", value: 1 } }),
      [node("n1", "Unknown", 400), node("n2", "Unknown", 10), node("n3", "True")],
      NOW,
    );
    assert.equal(e.unhealthyCount, 2);
    assert.deepEqual(e.gate, { open: false, remediationsAllowed: 0, reason: "total: 3, unhealthy: 2, maxUnhealthy: 1" });
  });

  // [name, max_unhealthy or range, targets, unhealthy, open, remediationsAllowed]
  const gates: Array<[string, { max?: string | number; range?: string }, number, number, boolean, number]> = [
    ["60% of 7 is 4: 4 unhealthy open", { max: "60%" }, 7, 4, true, 0],
    ["60% of 7 is 4: 5 unhealthy closed", { max: "60%" }, 7, 5, false, 0],
    ["50% of 5 rounds down to 2", { max: "50%" }, 5, 2, true, 0],
    ["50% of 5 rounds down to 2: 3 closed", { max: "50%" }, 5, 3, false, 0],
    ["40% of 5 is 2: 3 of 5 closed", { max: "40%" }, 5, 3, false, 0],
    ["40% of 5 is 2: 1 of 5 open with 1 more allowed", { max: "40%" }, 5, 1, true, 1],
    ["an integer larger than the target count: 3 with 2 targets", { max: 3 }, 2, 2, true, 1],
    ["integer 1 and 1 unhealthy", { max: 1 }, 4, 1, true, 0],
    ["0 = report only: one unhealthy closes the gate", { max: 0 }, 3, 1, false, 0],
    ["0 with everything healthy: open, nothing to do", { max: 0 }, 3, 0, true, 0],
    ["default 100%: everything may be unhealthy", {}, 3, 3, true, 0],
    ["range [1-3] with 1 of 3 unhealthy", { range: "[1-3]" }, 3, 1, true, 2],
    ["range [1-3] below its minimum", { range: "[1-3]" }, 3, 0, false, 0],
    ["range [1-3] above its maximum", { range: "[1-3]" }, 5, 4, false, 0],
    ["range takes precedence over max_unhealthy", { max: "0%", range: "[1-3]" }, 3, 2, true, 1],
  ];
  for (const [name, limit, targets, unhealthy, open, allowed] of gates) {
    it(`gate: ${name}`, () => {
      const c = check({
        ...(limit.max !== undefined && { maxUnhealthy: parseMaxUnhealthy(limit.max) ?? assert.fail("bad max") }),
        unhealthyRange: limit.range ? parseUnhealthyRange(limit.range) : null,
      });
      const nodes = Array.from({ length: targets }, (_, i) => node(`n${i + 1}`, i < unhealthy ? "False" : "True", 400));
      const e = evaluateHealthCheck(c, nodes, NOW);
      assert.equal(e.unhealthyCount, unhealthy);
      assert.equal(e.gate.open, open);
      assert.equal(e.gate.remediationsAllowed, allowed);
      if (!open) assert.match(e.gate.reason ?? "", new RegExp(`^total: ${targets}, unhealthy: ${unhealthy}, `));
    });
  }

  it("says why with the counts: total 5, unhealthy 3, maxUnhealthy 40%", () => {
    const nodes = ["False", "False", "Unknown", "True", "True"].map((s, i) => node(`n${i + 1}`, s as "True", 400));
    assert.equal(
      evaluateHealthCheck(check({ maxUnhealthy: { kind: "percent", value: 40 } }), nodes, NOW).gate.reason,
      "total: 5, unhealthy: 3, maxUnhealthy: 40%",
    );
  });

  it("a paused check never opens its gate", () => {
    const e = evaluateHealthCheck(check({ paused: true }), [node("n1", "False", 400)], NOW);
    assert.deepEqual(e.gate, { open: false, remediationsAllowed: 0, reason: "paused" });
  });
});

describe("max_unhealthy and unhealthy_range parsing", () => {
  const cases: Array<[string | number, unknown]> = [
    ["40%", { kind: "percent", value: 40 }],
    ["0%", { kind: "percent", value: 0 }],
    ["100%", { kind: "percent", value: 100 }],
    ["101%", null],
    ["-1%", null],
    ["4.5%", null],
    [3, { kind: "count", value: 3 }],
    ["3", { kind: "count", value: 3 }],
    [-1, null],
    ["many", null],
  ];
  for (const [input, want] of cases) it(`max_unhealthy ${JSON.stringify(input)}`, () => assert.deepEqual(parseMaxUnhealthy(input), want));
  const ranges: Array<[string, unknown]> = [
    ["[1-3]", { min: 1, max: 3 }],
    ["[2-2]", { min: 2, max: 2 }],
    ["[3-1]", null],
    ["1-3", null],
    ["[a-3]", null],
  ];
  for (const [input, want] of ranges) it(`unhealthy_range ${input}`, () => assert.deepEqual(parseUnhealthyRange(input), want));
});
