import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import { ConfigError, parseConfig } from "../../src/config/load-config.js";

const SOURCE = "kintsugi.yaml";

function problems(text: string): Array<{ path: string; message: string }> {
  try {
    parseConfig(text, SOURCE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return [...error.problems];
  }
  assert.fail(`expected a ConfigError for:\n${text}`);
}

// What an operator copies from sabakan's config (cybozu-go/etcdutil's YAML) before changing the prefix.
const SABAKAN_STYLE = `
store: etcd
etcd:
  endpoints:
    - https://10.1.2.3:2379
    - https://10.11.12.13:2379
  prefix: "/kintsugi/"
  timeout: "2s"
  username: "etcd-user-name"
  password: "etcd-password"
  tls-ca-file: "/etc/ssl/my-ca.crt"
  tls-cert-file: "/path/to/my-user.crt"
  tls-key-file: "/path/to/my-user.key"
`;

describe("parseConfig: store, etcd and leader_election", () => {
  const cases: { name: string; text: string; expected: Partial<KintsugiConfig> }[] = [
    {
      name: "no keys: SQLite, etcd's defaults, a 10 s lease named after the host",
      text: "",
      expected: { store: "sqlite", etcd: DEFAULT_ETCD_CONFIG, leaderElection: { leaseTtlSeconds: 10, replicaName: hostname() } },
    },
    {
      name: "store: etcd without an etcd section takes etcdutil's defaults",
      text: "store: etcd",
      expected: {
        store: "etcd",
        etcd: {
          endpoints: ["http://127.0.0.1:2379"],
          prefix: "/kintsugi/",
          timeoutMs: 2000,
          maxTxnOps: 128,
          maxRequestBytes: 1_572_864,
          compactionRetentionMs: 86_400_000,
          auth: null,
          tlsCa: null,
          tlsClient: null,
        },
      },
    },
    { name: "an empty etcd section is the defaults", text: "store: etcd\netcd: {}", expected: { store: "etcd", etcd: DEFAULT_ETCD_CONFIG } },
    {
      name: "sabakan's section, copied",
      text: SABAKAN_STYLE,
      expected: {
        store: "etcd",
        etcd: {
          endpoints: ["https://10.1.2.3:2379", "https://10.11.12.13:2379"],
          prefix: "/kintsugi/",
          timeoutMs: 2000,
          maxTxnOps: 128,
          maxRequestBytes: 1_572_864,
          compactionRetentionMs: 86_400_000,
          auth: { username: "etcd-user-name", password: "etcd-password" },
          tlsCa: { file: "/etc/ssl/my-ca.crt" },
          tlsClient: { cert: { file: "/path/to/my-user.crt" }, key: { file: "/path/to/my-user.key" } },
        },
      },
    },
    {
      name: "certificates embedded in the file, as etcdutil allows",
      text: 'etcd: { endpoints: ["https://e:2379"], tls-ca: "CA PEM", tls-cert: "CERT PEM", tls-key: "KEY PEM" }',
      expected: {
        etcd: {
          ...DEFAULT_ETCD_CONFIG,
          endpoints: ["https://e:2379"],
          tlsCa: { pem: "CA PEM" },
          tlsClient: { cert: { pem: "CERT PEM" }, key: { pem: "KEY PEM" } },
        },
      },
    },
    {
      name: "endpoints keep scheme, host and port only; a default port is written out",
      text: 'etcd: { endpoints: ["http://[::1]:2379/", "http://etcd.internal:80"] }',
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, endpoints: ["http://[::1]:2379", "http://etcd.internal:80"] } },
    },
    { name: "a timeout in Go's notation", text: 'etcd: { timeout: "1m30s" }', expected: { etcd: { ...DEFAULT_ETCD_CONFIG, timeoutMs: 90_000 } } },
    {
      name: "etcd's own limits as its members are started with",
      text: "etcd: { max-txn-ops: 1024, max-request-bytes: 10485760 }",
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, maxTxnOps: 1024, maxRequestBytes: 10_485_760 } },
    },
    {
      name: "kintsugi's compaction keeping an hour",
      text: 'etcd: { compaction-retention: "1h" }',
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, compactionRetentionMs: 3_600_000 } },
    },
    {
      name: "kintsugi's compaction off",
      text: "etcd: { compaction-retention: off }",
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, compactionRetentionMs: 0 } },
    },
    {
      name: "kintsugi's compaction off as 0",
      text: "etcd: { compaction-retention: 0 }",
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, compactionRetentionMs: 0 } },
    },
    {
      name: "a prefix of several levels",
      text: 'etcd: { prefix: "/dc1/kintsugi/" }',
      expected: { etcd: { ...DEFAULT_ETCD_CONFIG, prefix: "/dc1/kintsugi/" } },
    },
    {
      name: "the etcd section without store: etcd is kept (for copying data)",
      text: 'etcd: { prefix: "/k/" }',
      expected: { store: "sqlite", etcd: { ...DEFAULT_ETCD_CONFIG, prefix: "/k/" } },
    },
    {
      name: "leader_election keys",
      text: "leader_election: { lease_ttl_seconds: 2, replica_name: boot-1 }",
      expected: { leaderElection: { leaseTtlSeconds: 2, replicaName: "boot-1" } },
    },
    {
      name: "leader_election upper bound",
      text: "leader_election: { lease_ttl_seconds: 300 }",
      expected: { leaderElection: { leaseTtlSeconds: 300, replicaName: hostname() } },
    },
  ];
  for (const { name, text, expected } of cases) {
    it(name, () => {
      assert.deepEqual(parseConfig(text, SOURCE), { ...DEFAULT_CONFIG, ...expected });
    });
  }
});

describe("parseConfig: etcd and leader_election rules reject with the key path", () => {
  const cases: { name: string; text: string; path: string; message: string }[] = [
    { name: "an unknown store", text: "store: postgres", path: "store", message: 'must be one of sqlite, etcd, got "postgres"' },
    { name: "an unknown etcd key", text: "etcd: { endpoint: [http://e:2379] }", path: "etcd.endpoint", message: "unknown key" },
    { name: "etcdutil's flag name instead of its YAML key", text: "etcd: { tls-ca: x, etcd-tls-ca: y }", path: "etcd.etcd-tls-ca", message: "unknown key" },
    { name: "no endpoints", text: "etcd: { endpoints: [] }", path: "etcd.endpoints", message: "must be a non-empty list" },
    { name: "endpoints as one string", text: "etcd: { endpoints: http://e:2379 }", path: "etcd.endpoints", message: 'must be a list, got "http://e:2379"' },
    {
      name: "an endpoint without a scheme",
      text: "etcd: { endpoints: [10.0.0.1:2379] }",
      path: "etcd.endpoints[0]",
      message: 'must be an http or https URL with a port and no path, e.g. "http://10.0.0.1:2379"',
    },
    {
      name: "an endpoint without a port",
      text: "etcd: { endpoints: [http://e] }",
      path: "etcd.endpoints[0]",
      message: "must be an http or https URL with a port and no path",
    },
    {
      name: "an endpoint with a path",
      text: "etcd: { endpoints: [http://e:2379/v3] }",
      path: "etcd.endpoints[0]",
      message: "must be an http or https URL with a port and no path",
    },
    {
      name: "an endpoint of another scheme",
      text: "etcd: { endpoints: [unix://e:2379] }",
      path: "etcd.endpoints[0]",
      message: "must be an http or https URL with a port and no path",
    },
    {
      name: "an endpoint with credentials",
      text: "etcd: { endpoints: ['http://u:SECRET@e:2379'] }",
      path: "etcd.endpoints[0]",
      message: "must not hold a user name or password; set etcd.username and etcd.password",
    },
    {
      name: "http and https endpoints mixed",
      text: "etcd: { endpoints: [http://a:2379, https://b:2379] }",
      path: "etcd.endpoints",
      message: "must be all http or all https, not both",
    },
    {
      name: "TLS keys with http endpoints",
      text: "etcd: { endpoints: [http://a:2379], tls-ca-file: /ca.pem }",
      path: "etcd.endpoints",
      message: "must be https URLs when TLS keys (tls-ca-file, tls-cert-file, ...) are set",
    },
    {
      name: "a prefix without the leading slash",
      text: "etcd: { prefix: kintsugi/ }",
      path: "etcd.prefix",
      message: 'must start and end with "/" and name something between, e.g. "/kintsugi/"',
    },
    { name: "a prefix without the trailing slash", text: "etcd: { prefix: /kintsugi }", path: "etcd.prefix", message: 'must start and end with "/"' },
    { name: "the root as prefix", text: "etcd: { prefix: / }", path: "etcd.prefix", message: 'must start and end with "/"' },
    { name: "a prefix with a space", text: "etcd: { prefix: '/kin tsugi/' }", path: "etcd.prefix", message: "must not contain spaces or control characters" },
    {
      name: "a timeout without a unit",
      text: "etcd: { timeout: 2 }",
      path: "etcd.timeout",
      message: 'must be a duration as Go writes it, with a unit, e.g. "2s" or "500ms"',
    },
    {
      name: "a timeout in words",
      text: "etcd: { timeout: two seconds }",
      path: "etcd.timeout",
      message: 'must be a duration as Go writes it, with a unit, e.g. "2s" or "500ms", got "two seconds"',
    },
    { name: "a max-txn-ops below what one write needs", text: "etcd: { max-txn-ops: 4 }", path: "etcd.max-txn-ops", message: "must be >= 8" },
    {
      name: "a max-request-bytes that is not a whole number",
      text: "etcd: { max-request-bytes: 1.5 }",
      path: "etcd.max-request-bytes",
      message: "must be an integer, got 1.5",
    },
    {
      name: "a compaction retention in words",
      text: "etcd: { compaction-retention: a day }",
      path: "etcd.compaction-retention",
      message: 'must be a duration as Go writes it, e.g. "24h" or "90m", or "0" or "off" (kintsugi does not compact), got "a day"',
    },
    {
      name: "a compaction retention too short for a replica's watch to ride out a brief outage",
      text: "etcd: { compaction-retention: 30s }",
      path: "etcd.compaction-retention",
      message: 'must be "0" or "off", or between "5m" and "720h" (30 days), got "30s"',
    },
    {
      name: "a compaction retention given as a number of hours, as etcd's flag takes it",
      text: "etcd: { compaction-retention: 24 }",
      path: "etcd.compaction-retention",
      message: 'must be a duration as Go writes it, e.g. "24h" or "90m", or "0" or "off" (kintsugi does not compact)',
    },
    { name: "a zero timeout", text: "etcd: { timeout: 0s }", path: "etcd.timeout", message: 'must be at least 1ms, got "0s"' },
    { name: "a negative timeout", text: "etcd: { timeout: -2s }", path: "etcd.timeout", message: 'must be at least 1ms, got "-2s"' },
    { name: "a user without a password", text: "etcd: { username: kintsugi }", path: "etcd.password", message: "is required with etcd.username" },
    { name: "a password without a user", text: "etcd: { password: pw }", path: "etcd.username", message: "is required with etcd.password" },
    { name: "an empty user name", text: "etcd: { username: '', password: pw }", path: "etcd.username", message: "must not be empty" },
    {
      name: "a password that YAML made a number",
      text: "etcd: { username: u, password: 31337 }",
      path: "etcd.password",
      message: "must be a string (quote it); the value is not shown",
    },
    {
      name: "a CA as file and inline",
      text: "etcd: { endpoints: [https://e:2379], tls-ca-file: /ca, tls-ca: pem }",
      path: "etcd.tls-ca",
      message: "give tls-ca-file or tls-ca, not both",
    },
    {
      name: "a certificate as file and inline",
      text: "etcd: { endpoints: [https://e:2379], tls-cert-file: /c, tls-cert: pem, tls-key-file: /k }",
      path: "etcd.tls-cert",
      message: "give tls-cert-file or tls-cert, not both",
    },
    {
      name: "a client certificate without its key",
      text: "etcd: { endpoints: [https://e:2379], tls-cert-file: /c }",
      path: "etcd.tls-key-file",
      message: "is required with a client certificate (tls-cert-file or tls-cert): give its key",
    },
    {
      name: "a client key without its certificate",
      text: "etcd: { endpoints: [https://e:2379], tls-key: pem }",
      path: "etcd.tls-cert-file",
      message: "is required with a client key (tls-key-file or tls-key): give its certificate",
    },
    { name: "an empty CA file name", text: "etcd: { endpoints: [https://e:2379], tls-ca-file: '' }", path: "etcd.tls-ca-file", message: "must not be empty" },
    { name: "an unknown leader_election key", text: "leader_election: { ttl: 5 }", path: "leader_election.ttl", message: "unknown key" },
    { name: "a lease TTL under 2 s", text: "leader_election: { lease_ttl_seconds: 1 }", path: "leader_election.lease_ttl_seconds", message: "must be >= 2" },
    {
      name: "a lease TTL over 300 s",
      text: "leader_election: { lease_ttl_seconds: 301 }",
      path: "leader_election.lease_ttl_seconds",
      message: "must be <= 300",
    },
    {
      name: "a fractional lease TTL",
      text: "leader_election: { lease_ttl_seconds: 2.5 }",
      path: "leader_election.lease_ttl_seconds",
      message: "must be an integer, got 2.5",
    },
    {
      name: "a replica name with a space",
      text: "leader_election: { replica_name: 'boot 1' }",
      path: "leader_election.replica_name",
      message: "must be 1-128 characters without spaces or control characters",
    },
    {
      name: "an empty replica name",
      text: "leader_election: { replica_name: '' }",
      path: "leader_election.replica_name",
      message: "must be 1-128 characters without spaces or control characters",
    },
  ];
  for (const { name, text, path, message } of cases) {
    it(name, () => {
      const found = problems(text);
      assert.ok(
        found.some((p) => p.path === path && p.message.startsWith(message)),
        `no problem {path: ${path}, message: ${message}...} in ${JSON.stringify(found)}`,
      );
    });
  }

  it("no message shows the password, an inline key or credentials of an endpoint", () => {
    const messages = [
      problems("etcd: { username: u, password: 31337SECRET, bogus: 1 }"),
      problems("etcd: { username: u, password: [SECRET] }"),
      problems("etcd: { endpoints: [https://e:2379], tls-cert-file: /c, tls-key: [SECRET] }"),
      problems("etcd: { endpoints: ['http://u:SECRET@e:2379'] }"),
    ];
    for (const found of messages) assert.doesNotMatch(JSON.stringify(found), /SECRET/);
  });
});
