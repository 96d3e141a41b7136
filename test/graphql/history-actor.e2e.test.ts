import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startAlertBridge, type AlertBridge } from "../../src/alerts/alert-bridge.js";
import { sha256Hex } from "../../src/auth/tokens.js";
import type { Alert } from "../../src/domain/alerts/alert.js";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";

const SECRETS = { alice: "kintsugi_alice-secret", bob: "kintsugi_bob-secret", alerts: "kintsugi_alerts-secret" } as const;

/** One step that runs at once and then watches for an hour a machine that stays unhealthy: the entry stays PROCESSING. */
const WATCHING_FOR_AN_HOUR = {
  ...EMPTY_REPAIR_CONFIG,
  repairProcedures: [
    {
      machineTypes: ["qemu"],
      repairOperations: [
        {
          operation: "unreachable",
          repairSteps: [{ repairCommand: ["true"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 3600 }],
          healthCheckCommand: ["echo", "false"],
          commandTimeoutSeconds: 30,
          successCommand: null,
          successCommandTimeout: 30,
        },
      ],
    },
  ],
};

type HistoryRecord = { kind: string; actor: string };

describe("history records and alerts name who did what (two tokens over HTTP, the runner, the alert bridge)", () => {
  let k: TestKintsugi;
  let bridge: AlertBridge;
  const posted: Alert[] = [];

  const gqlAs = async (who: keyof typeof SECRETS, query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${k.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${SECRETS[who]}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: Record<string, any>; errors?: unknown };
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return body.data ?? {};
  };

  before(async () => {
    const tokens = [
      { name: "alice", role: "operator" as const, sha256: sha256Hex(SECRETS.alice) },
      { name: "bob", role: "operator" as const, sha256: sha256Hex(SECRETS.bob) },
      { name: "alerts", role: "viewer" as const, sha256: sha256Hex(SECRETS.alerts) },
    ];
    k = await startTestKintsugi(
      {
        auth: { anonymous: "none", tokens, allowedOrigins: [], allowedHosts: [] },
        repair: WATCHING_FOR_AN_HOUR,
        runner: { intervalSeconds: 0.1, healthCheckConcurrency: 2 },
      },
      { startRunner: true, startSchedule: false },
    );
    bridge = startAlertBridge({ server: k.url, token: SECRETS.alerts, having: null, post: (a) => void posted.push(a), log: () => undefined });
    const scrape = async () => (await fetch(`${k.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.alerts}` } })).text();
    await until("the bridge subscribed to entry events", scrape, (text) => /kintsugi_subscriptions\{topic="repairEntryEvents"\} 1/.test(text));
  });
  after(async () => {
    await bridge.close();
    await k.dispose();
  });

  it("alice adds, the runner works, bob deletes: the history and the deletion's alert say so", async () => {
    const added = await gqlAs("alice", `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.3") { index } }`);
    const index = added["addRepairEntry"].index as string;

    const history = async () =>
      (await gqlAs("bob", `query($i: ID!) { repairEntry(index: $i) { status stepStatus history { kind actor } } }`, { i: index }))["repairEntry"];
    // The repair command's start (its operation id) and its outcome are notes; after both the entry is at rest, watching for an hour.
    const watching = await until("the runner ran the repair command", history, (e) => e.history.filter((r: HistoryRecord) => r.kind === "NOTE").length === 2);
    assert.equal(watching.stepStatus, "WATCHING");
    assert.deepEqual(watching.history, [
      { kind: "CREATED", actor: "alice" },
      { kind: "TRANSITION", actor: "kintsugi" },
      { kind: "NOTE", actor: "kintsugi" },
      { kind: "NOTE", actor: "kintsugi" },
    ]);

    await gqlAs("bob", `mutation($i: ID!) { deleteRepairEntry(index: $i) { index } }`, { i: index });
    const whole = async () =>
      (await gqlAs("alice", `query($i: ID!) { repairHistory(index: $i) { kind actor } }`, { i: index }))["repairHistory"] as HistoryRecord[];
    const done = await until("the runner dequeued the entry", whole, (h) => h.at(-1)?.kind === "DEQUEUED");
    assert.deepEqual(done, [
      { kind: "CREATED", actor: "alice" },
      { kind: "TRANSITION", actor: "kintsugi" },
      { kind: "NOTE", actor: "kintsugi" },
      { kind: "NOTE", actor: "kintsugi" },
      { kind: "DELETE_REQUESTED", actor: "bob" },
      { kind: "DEQUEUED", actor: "kintsugi" },
    ]);

    const deleted = await until("the deletion was alerted", () => posted.find((a) => a.title.includes("deleted by")));
    assert.equal(deleted?.title, `entry ${index} for 10.0.0.3 deleted by bob`);
    assert.equal(deleted?.fields["by"], "bob");
    assert.equal(deleted?.severity, "warning");
  });
});
