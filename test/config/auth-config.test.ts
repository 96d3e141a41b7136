import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { DEFAULT_CONFIG } from "../../src/config/kintsugi-config.js";
import { ConfigError, parseConfig } from "../../src/config/load-config.js";
import { StartRefusedError } from "../../src/auth/access-policy.js";
import { startKintsugi } from "../../src/main.js";
import { tempDir } from "../support/temp-dir.js";

const SOURCE = "kintsugi.yaml";
const HASH = "0123456789abcdef".repeat(4);
/** Something a careless operator might paste where a hash belongs: it must never be echoed. */
const SECRET = "kintsugi_PastedSecretValue";

function problems(text: string): Array<{ path: string; message: string }> {
  try {
    parseConfig(text, SOURCE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /PastedSecretValue/, "a secret was echoed");
    return [...error.problems];
  }
  assert.fail("the config was accepted");
}

describe("the auth section", () => {
  const valid: Array<{ name: string; text: string; auth: unknown }> = [
    { name: "no auth section on loopback: none (the loopback default applies at start)", text: 'listen: "127.0.0.1:10180"', auth: null },
    { name: "no auth section on localhost", text: "listen: localhost:10180", auth: null },
    {
      name: "an empty auth section: anonymous clients may do nothing",
      text: "auth: {}",
      auth: { anonymous: "none", tokens: [], allowedOrigins: [], allowedHosts: [], clientCertificates: [] },
    },
    {
      name: "anonymous viewers off loopback, with a token; hashes are kept lower-case",
      text: `listen: "0.0.0.0:10180"\nauth:\n  anonymous: viewer\n  tokens:\n    - { name: ci-bot, role: operator, sha256: "${HASH.toUpperCase()}" }\n`,
      auth: { anonymous: "viewer", tokens: [{ name: "ci-bot", role: "operator", sha256: HASH }], allowedOrigins: [], allowedHosts: [], clientCertificates: [] },
    },
    {
      name: "origins are normalised as browsers send them",
      text: 'auth: { allowed_origins: ["https://Ops.Example.com", "http://dash.example:8080/"], allowed_hosts: [Kintsugi.Internal] }',
      auth: {
        anonymous: "none",
        tokens: [],
        allowedOrigins: ["https://ops.example.com", "http://dash.example:8080"],
        allowedHosts: ["kintsugi.internal"],
        clientCertificates: [],
      },
    },
  ];
  for (const { name, text, auth } of valid) it(name, () => assert.deepEqual(parseConfig(text, SOURCE).auth, auth));

  const invalid: Array<{ name: string; text: string; path: string; message: RegExp }> = [
    {
      name: "a non-loopback listener without an auth section",
      text: 'listen: "0.0.0.0:10180"',
      path: "auth",
      message: /^listen address 0\.0\.0\.0 is not a loopback address: add an auth section .*auth\.anonymous: none, viewer, operator or admin/,
    },
    {
      name: "an IPv6 wildcard listener without an auth section",
      text: 'listen: "[::]:10180"',
      path: "auth",
      message: /^listen address :: is not a loopback address/,
    },
    { name: "a host name listener without an auth section", text: "listen: kintsugi.example:10180", path: "auth", message: /not a loopback address/ },
    { name: "an unknown anonymous role", text: "auth: { anonymous: root }", path: "auth.anonymous", message: /^must be one of none, viewer, operator, admin/ },
    {
      name: "a token with an unknown role",
      text: `auth: { tokens: [ { name: a, role: superuser, sha256: "${HASH}" } ] }`,
      path: "auth.tokens[0].role",
      message: /^must be one of viewer, operator, admin/,
    },
    {
      name: "a token where its hash belongs, not echoed",
      text: `auth: { tokens: [ { name: a, role: admin, sha256: "${SECRET}" } ] }`,
      path: "auth.tokens[0].sha256",
      message: /^must be the token's SHA-256 as 64 hexadecimal digits/,
    },
    { name: "a token without a hash", text: "auth: { tokens: [ { name: a, role: admin } ] }", path: "auth.tokens[0].sha256", message: /^is required$/ },
    {
      name: "a token under an unknown key",
      text: `auth: { tokens: [ { name: a, role: admin, sha256: "${HASH}", token: "${SECRET}" } ] }`,
      path: "auth.tokens[0].token",
      message: /^unknown key$/,
    },
    {
      name: "a token name with a space",
      text: `auth: { tokens: [ { name: "ci bot", role: admin, sha256: "${HASH}" } ] }`,
      path: "auth.tokens[0].name",
      message: /^must be 1-63 letters/,
    },
    {
      name: "two tokens with one name",
      text: `auth: { tokens: [ { name: a, role: admin, sha256: "${HASH}" }, { name: a, role: viewer, sha256: "${"f".repeat(64)}" } ] }`,
      path: "auth.tokens",
      message: /^token names must be unique .*: a$/,
    },
    {
      name: "an origin with a path",
      text: 'auth: { allowed_origins: ["https://ops.example.com/app"] }',
      path: "auth.allowed_origins[0]",
      message: /^must be an origin/,
    },
    {
      name: "a host with a port",
      text: 'auth: { allowed_hosts: ["kintsugi.internal:10180"] }',
      path: "auth.allowed_hosts[0]",
      message: /^must be a host name without a port/,
    },
    { name: "an unknown key", text: "auth: { anonymus: viewer }", path: "auth.anonymus", message: /^unknown key \(did you mean anonymous\?\)$/ },
  ];
  for (const { name, text, path, message } of invalid) {
    it(`refuses ${name}`, () => {
      const found = problems(text);
      assert.ok(
        found.some((p) => p.path === path && message.test(p.message)),
        `no problem at ${path} matching ${message} in ${JSON.stringify(found)}`,
      );
    });
  }
});

describe("auth.tokens_file", () => {
  let dir: ReturnType<typeof tempDir>;
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };
  before(() => (dir = tempDir()));
  after(() => dir.remove());

  it("adds the tokens of a YAML list to those of the config", () => {
    const path = file(
      "tokens.yaml",
      `- { name: grafana, role: viewer, sha256: "${"a".repeat(64)}" }\n- name: oncall\n  role: admin\n  sha256: "${"b".repeat(64)}"\n`,
    );
    const auth = parseConfig(`auth:\n  tokens_file: ${path}\n  tokens: [ { name: ci-bot, role: operator, sha256: "${HASH}" } ]\n`, SOURCE).auth;
    assert.deepEqual(
      auth?.tokens.map((t) => `${t.name}:${t.role}`),
      ["ci-bot:operator", "grafana:viewer", "oncall:admin"],
    );
  });

  it("takes a mapping with a tokens key too", () => {
    const path = file("mapping.yaml", `tokens:\n  - { name: grafana, role: viewer, sha256: "${"a".repeat(64)}" }\n`);
    assert.deepEqual(parseConfig(`auth: { tokens_file: ${path} }`, SOURCE).auth?.tokens, [{ name: "grafana", role: "viewer", sha256: "a".repeat(64) }]);
  });

  const broken: Array<{ name: string; text: string; message: RegExp }> = [
    {
      name: "malformed YAML, reported by position without its content",
      text: `- { name: a, role: admin, sha256: "${SECRET}\n`,
      message: /^tokens-\d\.yaml: invalid YAML at line \d+, column \d+ \([A-Z_]+\)$/,
    },
    {
      name: "a secret where the hash belongs",
      text: `- { name: a, role: admin, sha256: ${SECRET} }\n`,
      message: /^tokens-\d\.yaml: \[0\]\.sha256: must be the token's SHA-256/,
    },
    {
      name: "a secret as a name of the wrong type",
      text: `- { name: [${SECRET}], role: admin, sha256: "${HASH}" }\n`,
      message: /^tokens-\d\.yaml: \[0\]\.name: must be a string$/,
    },
    {
      name: "a secret as a role",
      text: `- { name: a, role: ${SECRET}, sha256: "${HASH}" }\n`,
      message: /^tokens-\d\.yaml: \[0\]\.role: must be one of viewer, operator, admin$/,
    },
    {
      name: "a secret under an unknown key",
      text: `- { name: a, role: admin, sha256: "${HASH}", secret: ${SECRET} }\n`,
      message: /^tokens-\d\.yaml: \[0\]\.secret: unknown key$/,
    },
    { name: "a scalar", text: `${SECRET}\n`, message: /^tokens-\d\.yaml: must be a YAML list of \{ name, role, sha256 \}$/ },
  ];
  broken.forEach(({ name, text, message }, i) => {
    it(`reports ${name}`, () => {
      const path = file(`tokens-${i}.yaml`, text);
      const found = problems(`auth: { tokens_file: ${path} }`);
      assert.equal(found.length >= 1, true);
      for (const p of found) {
        assert.equal(p.path, "auth.tokens_file");
        assert.match(p.message.replace(`${dir.path}/`, ""), message);
      }
    });
  });

  it("reports a missing file", () => {
    assert.deepEqual(problems(`auth: { tokens_file: ${join(dir.path, "nope.yaml")} }`), [
      { path: "auth.tokens_file", message: `${join(dir.path, "nope.yaml")}: cannot read the tokens file: no such file` },
    ]);
  });

  it("a name in both the config and the file is refused", () => {
    const path = file("dup.yaml", `- { name: ci-bot, role: viewer, sha256: "${"a".repeat(64)}" }\n`);
    assert.match(
      problems(`auth: { tokens_file: ${path}, tokens: [ { name: ci-bot, role: admin, sha256: "${HASH}" } ] }`)[0]?.message ?? "",
      /must be unique .*: ci-bot/,
    );
  });
});

describe("startKintsugi: secure by default", () => {
  it("refuses to listen on a non-loopback address without an auth section, before opening anything", async () => {
    const dir = tempDir();
    try {
      const config = { ...DEFAULT_CONFIG, listen: { host: "0.0.0.0", port: 0 }, database: join(dir.path, "k.db") };
      let refusal: unknown = null;
      try {
        const running = await startKintsugi(config, { logger: pino({ level: "silent" }), startRunner: false });
        await running.close();
      } catch (err) {
        refusal = err;
      }
      assert.ok(refusal instanceof StartRefusedError, `started, or failed otherwise: ${String(refusal)}`);
      assert.match(refusal.message, /listen address 0\.0\.0\.0 is not a loopback address/);
      assert.equal(existsSync(join(dir.path, "k.db")), false, "no database was created");
    } finally {
      dir.remove();
    }
  });
});
