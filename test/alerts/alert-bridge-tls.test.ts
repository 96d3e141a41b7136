import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startAlertBridge } from "../../src/alerts/alert-bridge.js";
import { get } from "node:https";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { testServerCertificate, type TestServerCertificate } from "../support/test-ca.js";
import { until } from "../support/until.js";

describe("the alert bridge over WSS verifies the server with the CA it is given", () => {
  let k: TestKintsugi;
  let certificate: TestServerCertificate;

  before(async () => {
    certificate = await testServerCertificate();
    k = await startTestKintsugi({ tls: { certPem: certificate.certPem, keyPem: certificate.keyPem, clientCaPem: null } });
  });
  after(() => k.dispose());

  it("with the CA it connects and subscribes", async () => {
    const lines: string[] = [];
    const bridge = startAlertBridge({
      server: k.url,
      tls: { ca: certificate.ca.certPem },
      having: null,
      post: () => undefined,
      log: (l) => void lines.push(l),
    });
    const scrape = () =>
      new Promise<string>((resolve, reject) =>
        get(`${k.url}/metrics`, { ca: certificate.ca.certPem }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve(text));
        }).on("error", reject),
      );
    try {
      await until("the bridge subscribed to poll outcomes", scrape, (text) => /kintsugi_subscriptions\{topic="autoRepairOutcomes"\} 1/.test(text));
      assert.match(lines.join("\n"), /connected to wss:\/\/127\.0\.0\.1:\d+\/graphql/);
    } finally {
      await bridge.close();
    }
  });

  it("without it the connection fails on the server's certificate", async () => {
    const lines: string[] = [];
    const bridge = startAlertBridge({ server: k.url, having: null, post: () => undefined, log: (l) => void lines.push(l), retryInitialMs: 10 });
    try {
      await until(
        "the bridge reports it cannot connect",
        () => lines.join("\n"),
        (text) => /cannot connect to wss:.*(certificate|UNABLE_TO_VERIFY)/i.test(text),
      );
    } finally {
      await bridge.close();
    }
  });
});
