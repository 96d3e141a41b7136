import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import type { AuthConfig } from "../../src/auth/access-policy.js";
import { sha256Hex } from "../../src/auth/tokens.js";
import { CHROMIUM, withChromium } from "../support/graphiql-browser.js";
import { startHostilePage, type AttemptResults, type HostilePage } from "../support/hostile-page.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";

const TOKEN = "kintsugi_hostile-page-test-admin";
const WITH_TOKENS: AuthConfig = {
  anonymous: "none",
  tokens: [{ name: "admin", role: "admin", sha256: sha256Hex(TOKEN) }],
  allowedOrigins: [],
  allowedHosts: [],
};

/** What the page sees when kintsugi refuses its origin: nothing readable, and no WebSocket ever opens. */
const REFUSED: AttemptResults = {
  "fetch application/json": "failed: TypeError",
  "fetch without content-type": "failed: TypeError",
  "fetch text/plain": "failed: TypeError",
  "fetch no-cors text/plain": "opaque",
  websocket: "error, closed 1006",
};

/** Whether kintsugi's repair queue is enabled, asked as the CLI would (with the token where one is needed). */
async function queueEnabled(kintsugiUrl: string, token: string | null): Promise<boolean> {
  const res = await fetch(`${kintsugiUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: "{ repairQueueEnabled }" }),
  });
  const body = (await res.json()) as { data?: { repairQueueEnabled?: boolean }; errors?: unknown };
  assert.equal(typeof body.data?.repairQueueEnabled, "boolean", JSON.stringify(body));
  return body.data!.repairQueueEnabled!;
}

interface Case {
  readonly name: string;
  /** The auth section, given the hostile page's origin. */
  readonly auth: (hostileOrigin: string) => AuthConfig | null;
  /** The token the test itself uses to read the queue's state, if this configuration needs one. */
  readonly token: string | null;
  readonly results: AttemptResults | ((results: AttemptResults) => void);
  readonly queueEnabledAfter: boolean;
  /** Whether every answer Chromium saw from kintsugi must be a 403 (the Origin rule, not only the browser, refused). */
  readonly allRefusedByKintsugi: boolean;
}

const CASES: readonly Case[] = [
  {
    name: "loopback default (clients without a token are operators): every attempt fails",
    auth: () => null,
    token: null,
    results: REFUSED,
    queueEnabledAfter: true,
    allRefusedByKintsugi: true,
  },
  {
    name: "tokens configured, anonymous none: every attempt fails",
    auth: () => WITH_TOKENS,
    token: TOKEN,
    results: REFUSED,
    queueEnabledAfter: true,
    allRefusedByKintsugi: true,
  },
  {
    // The control: the same page from an origin kintsugi allows does stop the queue, so the page's attacks are real
    // and the refusals above come from the Origin rule. (kintsugi sends no CORS headers, so fetch stays unreadable.)
    name: "control: from an origin in auth.allowed_origins, the mutation goes through over fetch (CORS) and WebSocket",
    auth: (hostileOrigin) => ({ anonymous: "operator", tokens: [], allowedOrigins: [hostileOrigin], allowedHosts: [] }),
    token: null,
    results: (results) => {
      assert.match(results["websocket"] ?? "", /^open, connection_ack, next, mutation answered: \{"data":\{"setRepairQueueEnabled":false\}\}/);
      assert.equal(
        results["fetch application/json"],
        'answered 200: {"data":{"setRepairQueueEnabled":false}}\n',
        "the page reads kintsugi's answer: CORS allows its origin",
      );
    },
    queueEnabledAfter: false,
    allRefusedByKintsugi: false,
  },
];

describe("a page from another origin", { skip: existsSync(CHROMIUM) ? false : `chromium not found at ${CHROMIUM}` }, () => {
  for (const c of CASES) {
    it(c.name, { timeout: 180_000 }, async (t) => {
      const hostile: HostilePage = await startHostilePage();
      const k = await startTestKintsugi({ auth: c.auth(hostile.origin) });
      const kintsugiAnswers: string[] = [];
      await withChromium(
        t,
        async (browser) => {
          const kintsugiOrigin = new URL(k.url).origin;
          assert.notEqual(hostile.origin, kintsugiOrigin);
          assert.equal(await queueEnabled(k.url, c.token), true);
          browser.context.on("response", (response) => {
            if (new URL(response.url()).origin === kintsugiOrigin) kintsugiAnswers.push(`${response.request().method()} ${response.status()}`);
          });
          await browser.page.goto(hostile.urlAgainst(kintsugiOrigin));
          await browser.page.waitForFunction(() => (globalThis as unknown as { document: { title: string } }).document.title === "done");
          const results = JSON.parse((await browser.page.locator("#results").textContent()) ?? "{}") as AttemptResults;
          t.diagnostic(`page saw ${JSON.stringify(results)}; kintsugi answered ${JSON.stringify(kintsugiAnswers)}`);
          if (typeof c.results === "function") c.results(results);
          else assert.deepEqual(results, c.results);
          if (c.allRefusedByKintsugi) {
            assert.ok(kintsugiAnswers.length > 0, "Chromium saw no answer from kintsugi");
            assert.deepEqual(
              kintsugiAnswers.filter((a) => !a.endsWith(" 403")),
              [],
              "answers other than 403",
            );
          }
          assert.equal(await queueEnabled(k.url, c.token), c.queueEnabledAfter, "the repair queue's state after the page ran");
        },
        { cleanup: () => Promise.all([k.dispose(), hostile.close()]) },
      );
    });
  }
});
