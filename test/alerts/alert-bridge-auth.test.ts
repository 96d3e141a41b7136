import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startAlertBridge } from "../../src/alerts/alert-bridge.js";
import { sha256Hex } from "../../src/auth/tokens.js";
import type { Alert } from "../../src/domain/alerts/alert.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";

const TOKEN = "kintsugi_alerts-secret";
const OPERATOR = "kintsugi_operator-secret";

describe("the alert bridge sends its token in connection_init", () => {
  let k: TestKintsugi;

  before(async () => {
    k = await startTestKintsugi({
      auth: {
        anonymous: "none",
        tokens: [
          { name: "alerts", role: "viewer", sha256: sha256Hex(TOKEN) },
          { name: "ops", role: "operator", sha256: sha256Hex(OPERATOR) },
        ],
        allowedOrigins: [],
        allowedHosts: [],
      },
    });
  });
  after(() => k.dispose());

  it("with its viewer token it follows the server and posts alerts", async () => {
    const posted: Alert[] = [];
    const bridge = startAlertBridge({ server: k.url, token: TOKEN, having: null, post: (a) => void posted.push(a), log: () => undefined, failureThreshold: 1 });
    const scrape = async () => (await fetch(`${k.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    try {
      await until("the bridge subscribed to poll outcomes", scrape, (text) => /kintsugi_subscriptions\{topic="autoRepairOutcomes"\} 1/.test(text));
      // A poll without sabakan fails: with a threshold of 1 that is an alert.
      const res = await fetch(`${k.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${OPERATOR}` },
        body: JSON.stringify({ query: "mutation { runAutoRepair { error } }" }),
      });
      assert.equal(res.status, 200);
      await until(
        "the alert was posted",
        () => posted.length,
        (n) => n >= 1,
      );
      assert.match(posted[0]?.title ?? "", /sabakan polls failed/);
    } finally {
      await bridge.close();
    }
  });

  for (const [name, token] of [
    ["without a token", null],
    ["with an unknown token", "kintsugi_wrong"],
  ] as const) {
    it(`${name} it stops at once, saying the server refused it (close 4401), instead of retrying`, async () => {
      const lines: string[] = [];
      const bridge = startAlertBridge({ server: k.url, token, having: null, post: () => undefined, log: (l) => void lines.push(l), retryInitialMs: 10 });
      try {
        await assert.rejects(bridge.done, /4401/);
      } finally {
        await bridge.close();
      }
      assert.doesNotMatch(lines.join("\n"), /kintsugi_wrong/);
    });
  }
});
