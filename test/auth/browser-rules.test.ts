import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anonymousHostRefusal, browserRefusal, isLoopbackHost, type BrowserRules } from "../../src/auth/browser-rules.js";

describe("isLoopbackHost", () => {
  const cases: Array<[string, boolean]> = [
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["[::1]", true],
    ["::ffff:127.0.0.1", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["app.localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["128.0.0.1", false],
    ["localhost.attacker.example", false],
    ["attacker.example", false],
  ];
  for (const [host, expected] of cases) it(`${host}: ${expected}`, () => assert.equal(isLoopbackHost(host), expected));
});

describe("browserRefusal", () => {
  const loopback: BrowserRules = { loopbackListener: true, allowedHosts: ["kintsugi.internal"], allowedOrigins: ["https://ops.example.com"] };
  const network: BrowserRules = { loopbackListener: false, allowedHosts: [], allowedOrigins: [] };
  const networkTls: BrowserRules = { ...network, tls: true };
  const cases: Array<{ name: string; rules: BrowserRules; host: string | undefined; origin?: string; refused: RegExp | null }> = [
    { name: "a command-line client on loopback", rules: loopback, host: "127.0.0.1:10180", refused: null },
    { name: "localhost by name", rules: loopback, host: "localhost:10180", refused: null },
    { name: "IPv6 loopback", rules: loopback, host: "[::1]:10180", refused: null },
    {
      name: "DNS rebinding: a foreign name on a loopback listener",
      rules: loopback,
      host: "attacker.example:10180",
      refused: /Host "attacker\.example:10180" is not a loopback name/,
    },
    { name: "a foreign name without a port", rules: loopback, host: "attacker.example", refused: /is not a loopback name/ },
    { name: "a configured name on a loopback listener", rules: loopback, host: "Kintsugi.Internal:10180", refused: null },
    { name: "no Host header on a loopback listener", rules: loopback, host: undefined, refused: /must name it in its Host header/ },
    { name: "a garbled Host header", rules: loopback, host: "127.0.0.1:10180/x", refused: /Host header/ },
    { name: "any Host on a network listener", rules: network, host: "kintsugi.example:10180", refused: null },
    { name: "kintsugi's own origin", rules: loopback, host: "127.0.0.1:10180", origin: "http://127.0.0.1:10180", refused: null },
    { name: "own origin through a TLS proxy", rules: network, host: "kintsugi.example", origin: "https://kintsugi.example", refused: null },
    {
      name: "own host on another port is another origin",
      rules: loopback,
      host: "127.0.0.1:10180",
      origin: "http://127.0.0.1:8080",
      refused: /Origin "http:\/\/127\.0\.0\.1:8080" is not kintsugi's own/,
    },
    { name: "a foreign site", rules: loopback, host: "127.0.0.1:10180", origin: "https://attacker.example", refused: /Origin "https:\/\/attacker\.example"/ },
    { name: "a foreign site on a network listener", rules: network, host: "kintsugi.example:10180", origin: "https://attacker.example", refused: /Origin/ },
    { name: "an allowed origin", rules: loopback, host: "127.0.0.1:10180", origin: "https://ops.example.com", refused: null },
    {
      name: "kintsugi serving TLS: its own origin is https",
      rules: networkTls,
      host: "kintsugi.example:10443",
      origin: "https://kintsugi.example:10443",
      refused: null,
    },
    {
      name: "kintsugi serving TLS: http with its Host is another origin",
      rules: networkTls,
      host: "kintsugi.example:10443",
      origin: "http://kintsugi.example:10443",
      refused: /Origin "http:\/\/kintsugi\.example:10443" is not kintsugi's own/,
    },
    { name: "an opaque origin (sandboxed frame, file:)", rules: loopback, host: "127.0.0.1:10180", origin: "null", refused: /Origin "null"/ },
  ];
  for (const { name, rules, host, origin, refused } of cases) {
    it(name, () => {
      const why = browserRefusal(rules, host, origin);
      if (refused === null) assert.equal(why, null);
      else assert.match(why ?? "(passed)", refused);
    });
  }
});

describe("anonymousHostRefusal: a request without credentials must name a network listener by an address or an allowed name", () => {
  const network: BrowserRules = { loopbackListener: false, allowedHosts: ["kintsugi.internal"], allowedOrigins: [] };
  const loopback: BrowserRules = { loopbackListener: true, allowedHosts: [], allowedOrigins: [] };
  const cases: Array<{ name: string; rules: BrowserRules; host: string | undefined; refused: RegExp | null }> = [
    { name: "an IPv4 address with a port", rules: network, host: "10.0.0.5:10180", refused: null },
    { name: "an IPv4 address without a port", rules: network, host: "10.0.0.5", refused: null },
    { name: "an IPv6 address", rules: network, host: "[fd00::5]:10180", refused: null },
    { name: "an allowed name, in any case", rules: network, host: "Kintsugi.Internal:10180", refused: null },
    {
      name: "DNS rebinding: the attacker's own name",
      rules: network,
      host: "attacker.example:10180",
      refused: /^Host "attacker\.example:10180" is not an IP address or one of auth\.allowed_hosts/,
    },
    { name: "kintsugi's own name, not configured", rules: network, host: "kintsugi.example", refused: /^Host "kintsugi\.example" is not an IP address/ },
    { name: "a name that merely starts like an address", rules: network, host: "10.0.0.5.attacker.example", refused: /is not an IP address/ },
    { name: "no Host header", rules: network, host: undefined, refused: /^a request without a Host header is not an IP address/ },
    { name: "a garbled Host header", rules: network, host: "10.0.0.5/x", refused: /is not an IP address/ },
    { name: "a loopback listener: its own Host rule has decided", rules: loopback, host: "localhost:10180", refused: null },
  ];
  for (const { name, rules, host, refused } of cases) {
    it(name, () => {
      const why = anonymousHostRefusal(rules, host);
      if (refused === null) assert.equal(why, null);
      else assert.match(why ?? "(passed)", refused);
    });
  }
});
