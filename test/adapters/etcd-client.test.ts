import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { EtcdAuthenticationFailedError, GRPCDeadlineExceededError, type Etcd3 } from "etcd3";
import { DEFAULT_ETCD_CONFIG, type EtcdConfig } from "../../src/config/etcd-config.js";
import { etcdClientFor } from "../../src/adapters/etcd-client.js";
import { EtcdClientConfigError } from "../../src/config/etcd-tls.js";
import { createTestCa, issueClientCertificate, testServerCertificate } from "../support/test-ca.js";
import { tempDir } from "../support/temp-dir.js";
import { writeTlsTestFiles } from "../support/tls-files.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";

const config = (patch: Partial<EtcdConfig>): EtcdConfig => ({ ...DEFAULT_ETCD_CONFIG, ...patch });

/** Fails after a generous bound instead of hanging the test run: a call without a deadline would never settle. */
function settledWithin<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

describe("etcdClientFor against a real etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  const clients: Etcd3[] = [];
  const clientFor = (patch: Partial<EtcdConfig>) => {
    const client = etcdClientFor(config(patch));
    clients.push(client);
    return client;
  };
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    for (const client of clients) client.close();
    await etcd?.stop();
  });

  it("reads and writes through the configured endpoints", async () => {
    const client = clientFor({ endpoints: etcd.endpoints });
    await client.put("/kintsugi/test/hello").value("world");
    assert.equal(await client.get("/kintsugi/test/hello").string(), "world");
  });

  it("speaks TLS: verifies etcd's certificate with the CA and presents the client certificate; refused without either", async () => {
    // A cluster of its own, as sabakan's etcd is reached: https only, client certificates required.
    const dir = tempDir();
    const files = await writeTlsTestFiles(dir.path, ["kintsugi"], ["kintsugi"]);
    const secured = await startTestEtcd({ tls: { certFile: files.serverCert, keyFile: files.serverKey, clientCaFile: files.clientCa } });
    try {
      const endpoints = secured.endpoints;
      assert.match(endpoints[0] ?? "", /^https:/);
      const mine = files.client("kintsugi");
      const right = clientFor({ endpoints, tlsCa: { file: files.serverCa }, tlsClient: { cert: { file: mine.cert }, key: { file: mine.key } } });
      await right.put("/kintsugi/test/tls").value("ok");
      assert.equal(await right.get("/kintsugi/test/tls").string(), "ok");

      const stranger = files.client("stranger:kintsugi");
      // etcd refuses the handshake of the first two; kintsugi refuses etcd's certificate in the third.
      const refused: Array<[string, Partial<EtcdConfig>, RegExp]> = [
        ["no client certificate", { tlsCa: { file: files.serverCa } }, /bad certificate/],
        [
          "a client certificate of a CA etcd does not trust for clients",
          { tlsCa: { file: files.serverCa }, tlsClient: { cert: { file: stranger.cert }, key: { file: stranger.key } } },
          /bad certificate/,
        ],
        [
          "a CA that did not sign etcd's certificate",
          { tlsCa: { file: files.clientCa }, tlsClient: { cert: { file: mine.cert }, key: { file: mine.key } } },
          /unable to verify the first certificate/,
        ],
      ];
      for (const [name, patch, reason] of refused) {
        const client = clientFor({ endpoints, timeoutMs: 1000, ...patch });
        await assert.rejects(settledWithin(client.get("/kintsugi/test/tls").string(), name), reason, name);
      }
    } finally {
      await secured.stop();
      dir.remove();
    }
  });

  it("gives every call the timeout as its deadline: a server that never answers fails the call", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const client = clientFor({ endpoints: [`http://127.0.0.1:${port}`], timeoutMs: 200 });
      await assert.rejects(settledWithin(client.get("/kintsugi/test/hello").string(), "a call to a silent server"), GRPCDeadlineExceededError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("authenticates with the user name and password", async () => {
    // A cluster of its own: turning auth on would lock every other test out.
    const secured = await startTestEtcd();
    try {
      const admin = clientFor({ endpoints: secured.endpoints });
      await admin.user("root").create("root-pw");
      await admin.user("root").addRole("root");
      await admin.auth.authEnable();
      const right = clientFor({ endpoints: secured.endpoints, auth: { username: "root", password: "root-pw" } });
      await right.put("/kintsugi/test/auth").value("ok");
      assert.equal(await right.get("/kintsugi/test/auth").string(), "ok");
      const wrong = clientFor({ endpoints: secured.endpoints, auth: { username: "root", password: "not-it" } });
      await assert.rejects(wrong.get("/kintsugi/test/auth").string(), EtcdAuthenticationFailedError);
    } finally {
      await secured.stop();
    }
  });
});

describe("etcdClientFor refuses TLS material it cannot use, naming the key and the file", () => {
  const SECRET = "PastedSecretValue";
  const dir = tempDir();
  const at = (name: string) => join(dir.path, name);
  let good: { ca: string; cert: string; key: string; caPem: string };
  before(async () => {
    const server = await testServerCertificate();
    const client = await issueClientCertificate(server.ca, "kintsugi");
    const other = await issueClientCertificate(await createTestCa("another CA"), "other");
    writeFileSync(at("ca.pem"), server.ca.certPem);
    writeFileSync(at("client.pem"), client.certPem);
    writeFileSync(at("client.key"), client.keyPem);
    writeFileSync(at("other.key"), other.keyPem);
    writeFileSync(at("garbage.pem"), `${SECRET}\n`);
    writeFileSync(at("broken-key.pem"), `-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`);
    good = { ca: at("ca.pem"), cert: at("client.pem"), key: at("client.key"), caPem: server.ca.certPem };
  });
  after(() => dir.remove());

  const https = { endpoints: ["https://127.0.0.1:2379"] };

  it("builds a client from a readable CA and a matching certificate and key, as files or inline", () => {
    etcdClientFor(config({ ...https, tlsCa: { file: good.ca }, tlsClient: { cert: { file: good.cert }, key: { file: good.key } } })).close();
    etcdClientFor(config({ ...https, tlsCa: { pem: good.caPem } })).close();
    etcdClientFor(config({ ...https, tlsClient: { cert: { file: good.cert }, key: { file: good.key } } })).close();
  });

  const cases: { name: string; patch: () => Partial<EtcdConfig>; problems: () => Array<{ path: string; message: string | RegExp }> }[] = [
    {
      name: "a CA file that does not exist",
      patch: () => ({ tlsCa: { file: at("missing.pem") } }),
      problems: () => [{ path: "etcd.tls-ca-file", message: `${at("missing.pem")}: cannot read: no such file` }],
    },
    {
      name: "a CA file that is a directory",
      patch: () => ({ tlsCa: { file: dir.path } }),
      problems: () => [{ path: "etcd.tls-ca-file", message: `${dir.path}: cannot read: is a directory` }],
    },
    {
      name: "a CA file without a certificate",
      patch: () => ({ tlsCa: { file: at("garbage.pem") } }),
      problems: () => [{ path: "etcd.tls-ca-file", message: `${at("garbage.pem")}: no PEM certificate (-----BEGIN CERTIFICATE-----)` }],
    },
    {
      name: "an inline CA that is not PEM",
      patch: () => ({ tlsCa: { pem: SECRET } }),
      problems: () => [{ path: "etcd.tls-ca", message: "no PEM certificate (-----BEGIN CERTIFICATE-----)" }],
    },
    {
      name: "a client certificate file that does not exist, and a missing CA: both reported",
      patch: () => ({ tlsCa: { file: at("no-ca.pem") }, tlsClient: { cert: { file: at("no-cert.pem") }, key: { file: good.key } } }),
      problems: () => [
        { path: "etcd.tls-ca-file", message: `${at("no-ca.pem")}: cannot read: no such file` },
        { path: "etcd.tls-cert-file", message: `${at("no-cert.pem")}: cannot read: no such file` },
      ],
    },
    {
      name: "a key that belongs to another certificate",
      patch: () => ({ tlsClient: { cert: { file: good.cert }, key: { file: at("other.key") } } }),
      problems: () => [{ path: "etcd.tls-key-file", message: `${at("other.key")}: this key does not belong to the certificate in ${good.cert}` }],
    },
    {
      name: "a key file that is not a key",
      patch: () => ({ tlsClient: { cert: { file: good.cert }, key: { file: at("broken-key.pem") } } }),
      problems: () => [{ path: "etcd.tls-key-file", message: new RegExp(`^${at("broken-key.pem")}: not a usable PEM private key \\(.+\\)$`) }],
    },
    {
      name: "an inline key that is not a key",
      patch: () => ({ tlsClient: { cert: { file: good.cert }, key: { pem: SECRET } } }),
      problems: () => [{ path: "etcd.tls-key", message: /^not a usable PEM private key \(.+\)$/ }],
    },
  ];
  for (const { name, patch, problems } of cases) {
    it(name, () => {
      assert.throws(
        () => etcdClientFor(config({ ...https, ...patch() })),
        (error: unknown) => {
          assert.ok(error instanceof EtcdClientConfigError, `expected an EtcdClientConfigError, got ${String(error)}`);
          const expected = problems();
          assert.deepEqual(
            error.problems.map((p) => p.path),
            expected.map((p) => p.path),
          );
          expected.forEach(({ message }, i) => {
            const got = error.problems[i]?.message ?? "";
            if (typeof message === "string") assert.equal(got, message);
            else assert.match(got, message);
          });
          assert.equal(error.message, error.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
          assert.doesNotMatch(error.message, new RegExp(SECRET), "the content was echoed");
          return true;
        },
      );
    });
  }
});
