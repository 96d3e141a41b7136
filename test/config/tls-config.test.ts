import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConfigError, parseConfig } from "../../src/config/load-config.js";
import { createTestCa, issueServerCertificate, testServerCertificate, type TestServerCertificate } from "../support/test-ca.js";
import { tempDir } from "../support/temp-dir.js";

const SOURCE = "kintsugi.yaml";
/** A marker in files that are not PEM: a message must never quote a file's content. */
const SECRET = "PastedSecretValue";

describe("the tls section and auth.client_certificates", () => {
  const dir = tempDir();
  const at = (name: string) => join(dir.path, name);
  let server: TestServerCertificate;
  before(async () => {
    server = await testServerCertificate();
    const other = await issueServerCertificate(await createTestCa("another CA"));
    writeFileSync(at("cert.pem"), server.certPem);
    writeFileSync(at("key.pem"), server.keyPem);
    writeFileSync(at("ca.pem"), server.ca.certPem);
    writeFileSync(at("other-key.pem"), other.keyPem);
    writeFileSync(at("garbage.pem"), `${SECRET}\n`);
    writeFileSync(at("broken-cert.pem"), `-----BEGIN CERTIFICATE-----\n${SECRET}\n-----END CERTIFICATE-----\n`);
    writeFileSync(at("broken-key.pem"), `-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`);
  });
  after(() => dir.remove());

  const tls = (fields: Record<string, string>) =>
    `tls: { ${Object.entries(fields)
      .map(([k, v]) => `${k}: "${v.startsWith("/") ? v : at(v)}"`)
      .join(", ")} }\n`;

  function problems(text: string): Array<{ path: string; message: string }> {
    try {
      parseConfig(text, SOURCE);
    } catch (error) {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.doesNotMatch(error.message, new RegExp(SECRET), "a file's content was echoed");
      assert.doesNotMatch(error.message, /PRIVATE KEY-----\n/, "a key was echoed");
      return [...error.problems];
    }
    assert.fail("the config was accepted");
  }

  it("reads the certificate, the key and the client CA", () => {
    const config = parseConfig(
      tls({ cert_file: "cert.pem", key_file: "key.pem", client_ca_file: "ca.pem" }) + "auth:\n  client_certificates: [{ cn: ops-laptop, role: operator }]\n",
      SOURCE,
    );
    assert.deepEqual(config.tls, { certPem: server.certPem, keyPem: server.keyPem, clientCaPem: server.ca.certPem });
    assert.deepEqual(config.auth?.clientCertificates, [{ cn: "ops-laptop", role: "operator" }]);
  });

  it("no tls section: plain HTTP", () => assert.equal(parseConfig("", SOURCE).tls, null));

  const invalid: Array<{ name: string; text: () => string; path: string; message: RegExp }> = [
    {
      name: "a missing certificate file",
      text: () => tls({ cert_file: "nope.pem", key_file: "key.pem" }),
      path: "tls.cert_file",
      message: /nope\.pem: cannot read: no such file$/,
    },
    {
      name: "a certificate file that never ends (/dev/zero), refused at the bound, not read whole",
      text: () => tls({ cert_file: "/dev/zero", key_file: "key.pem" }),
      path: "tls.cert_file",
      message: /\/dev\/zero: cannot read: larger than 16777216 bytes$/,
    },
    {
      name: "a key file that is a directory",
      text: () => tls({ cert_file: "cert.pem", key_file: dir.path }),
      path: "tls.key_file",
      message: /cannot read: is a directory$/,
    },
    {
      name: "a certificate file that is not PEM, not echoed",
      text: () => tls({ cert_file: "garbage.pem", key_file: "key.pem" }),
      path: "tls.cert_file",
      message: /garbage\.pem: no PEM certificate/,
    },
    {
      name: "a PEM certificate that does not parse, not echoed",
      text: () => tls({ cert_file: "broken-cert.pem", key_file: "key.pem" }),
      path: "tls.cert_file",
      message: /broken-cert\.pem: not a valid PEM certificate/,
    },
    {
      name: "a key that is not PEM, not echoed",
      text: () => tls({ cert_file: "cert.pem", key_file: "garbage.pem" }),
      path: "tls.key_file",
      message: /garbage\.pem: not a usable PEM private key/,
    },
    {
      name: "a PEM key that does not parse, not echoed",
      text: () => tls({ cert_file: "cert.pem", key_file: "broken-key.pem" }),
      path: "tls.key_file",
      message: /broken-key\.pem: not a usable PEM private key/,
    },
    {
      name: "a key of another certificate",
      text: () => tls({ cert_file: "cert.pem", key_file: "other-key.pem" }),
      path: "tls.key_file",
      message: /other-key\.pem: this key does not belong to the certificate in .*cert\.pem$/,
    },
    {
      name: "a client CA that is not PEM",
      text: () => tls({ cert_file: "cert.pem", key_file: "key.pem", client_ca_file: "garbage.pem" }),
      path: "tls.client_ca_file",
      message: /no PEM certificate/,
    },
    { name: "a tls section without a key", text: () => `tls: { cert_file: "${at("cert.pem")}" }\n`, path: "tls.key_file", message: /is required/ },
    { name: "an unknown tls key", text: () => `tls: { cert_file: a, key_file: b, ca_file: c }\n`, path: "tls.ca_file", message: /unknown key/ },
    {
      name: "client certificates without tls.client_ca_file",
      text: () => tls({ cert_file: "cert.pem", key_file: "key.pem" }) + "auth:\n  client_certificates: [{ cn: ops-laptop, role: operator }]\n",
      path: "auth.client_certificates",
      message: /^needs tls\.client_ca_file/,
    },
    {
      name: "one CN mapped twice",
      text: () =>
        tls({ cert_file: "cert.pem", key_file: "key.pem", client_ca_file: "ca.pem" }) +
        "auth:\n  client_certificates: [{ cn: a, role: operator }, { cn: a, role: viewer }]\n",
      path: "auth.client_certificates[1].cn",
      message: /^is mapped twice$/,
    },
    {
      name: "a client certificate with an unknown role",
      text: () => "auth:\n  client_certificates: [{ cn: a, role: root }]\n",
      path: "auth.client_certificates[0].role",
      message: /^must be one of viewer, operator, admin/,
    },
    {
      name: "an empty CN",
      text: () => 'auth:\n  client_certificates: [{ cn: "", role: viewer }]\n',
      path: "auth.client_certificates[0].cn",
      message: /^must be the certificate subject's common name/,
    },
  ];
  for (const { name, text, path, message } of invalid) {
    it(`refuses ${name}`, () => {
      const found = problems(text());
      const problem = found.find((p) => p.path === path);
      assert.ok(problem, `no problem at ${path}: ${JSON.stringify(found)}`);
      assert.match(problem.message, message);
    });
  }
});
