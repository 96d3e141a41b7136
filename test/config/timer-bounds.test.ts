import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../src/config/load-config.js";
import { MAX_TIMER_SECONDS } from "../../src/config/kintsugi-config.js";

/** The problems of a config text, or [] when it loads. */
function problems(text: string): Array<{ path: string; message: string }> {
  try {
    parseConfig(text, "k.yaml");
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return [...error.problems];
  }
}

// node's timers fire at once past 2^31-1 ms: such a "timeout" would end every request at once, not never.
describe("timeouts and intervals are bounded by what a timer can wait, naming the key", () => {
  const TOO_LONG = /^must be <= 2147483 \(about 24\.8 days, the longest node's timers wait\)$/;
  const keys: Array<[string, (seconds: number) => string]> = [
    ["kubernetes.timeout_seconds", (s) => `kubernetes: { timeout_seconds: ${s} }`],
    ["sabakan.timeout_seconds", (s) => `sabakan: { url: "http://127.0.0.1:10080", timeout_seconds: ${s} }`],
    ["runner.interval_seconds", (s) => `runner: { interval_seconds: ${s} }`],
    ["limits.idle_timeout_seconds", (s) => `limits: { idle_timeout_seconds: ${s} }`],
    ["limits.request_timeout_seconds", (s) => `limits: { request_timeout_seconds: ${s} }`],
    ["limits.headers_timeout_seconds", (s) => `limits: { headers_timeout_seconds: ${s}, request_timeout_seconds: ${s} }`],
  ];
  for (const [key, text] of keys) {
    it(`${key}: the longest a timer waits is taken, a second more is refused`, () => {
      assert.deepEqual(problems(text(MAX_TIMER_SECONDS)), []);
      const refused = problems(text(MAX_TIMER_SECONDS + 1)).filter((p) => p.path === key);
      assert.equal(refused.length, 1, JSON.stringify(problems(text(MAX_TIMER_SECONDS + 1))));
      assert.match(refused[0]?.message ?? "", TOO_LONG);
    });
  }

  it("etcd.timeout: a Go duration up to the same bound", () => {
    assert.deepEqual(problems(`etcd: { timeout: "${MAX_TIMER_SECONDS}s" }`), []);
    assert.deepEqual(problems('etcd: { timeout: "1000h" }'), [
      { path: "etcd.timeout", message: 'must be at most "2147483s" (about 24.8 days, the longest node\'s timers wait), got "1000h"' },
    ]);
  });
});
