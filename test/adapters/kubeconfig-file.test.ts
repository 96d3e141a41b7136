import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadKubeconfigFile } from "../../src/adapters/kubeconfig-file.js";
import { ConfigError } from "../../src/config/load-config.js";
import { CONTEXT, MALFORMED_KUBECONFIGS, SECRET, SECRET_KEY_DATA, USER } from "../support/malformed-kubeconfigs.js";
import { tempDir } from "../support/temp-dir.js";

describe("loadKubeconfigFile", () => {
  const dir = tempDir();
  after(() => dir.remove());

  for (const { name, text, says } of MALFORMED_KUBECONFIGS) {
    it(`names the file and what is wrong, without its content: ${name}`, () => {
      const path = join(dir.path, name.replaceAll(" ", "-"));
      writeFileSync(path, text);
      assert.throws(
        () => loadKubeconfigFile(path),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.ok(err.message.startsWith(`${path}: `), err.message);
          assert.match(err.message, says);
          assert.equal(err.cause, undefined, "no cause carries the parser's snippet");
          for (const leaked of [SECRET, SECRET_KEY_DATA.slice(0, 16), "token", "user:"])
            assert.ok(!err.message.includes(leaked), `${leaked} in ${err.message}`);
          assert.ok(!JSON.stringify(err).includes(SECRET), "nor in any other property");
          return true;
        },
      );
    });
  }

  const unreadable: Array<{ name: string; path: () => string; says: string }> = [
    { name: "a missing file", path: () => join(dir.path, "nope"), says: "cannot read the kubeconfig: no such file" },
    {
      name: "a directory",
      path: () => {
        mkdirSync(join(dir.path, "d"), { recursive: true });
        return join(dir.path, "d");
      },
      says: "cannot read the kubeconfig: is a directory",
    },
    {
      name: "a file that never ends (/dev/zero), refused at the bound",
      path: () => "/dev/zero",
      says: "cannot read the kubeconfig: larger than 16777216 bytes",
    },
  ];
  for (const { name, path, says } of unreadable) {
    it(`names a file it cannot read: ${name}`, () => {
      const file = path();
      assert.throws(() => loadKubeconfigFile(file), { name: "ConfigError", message: `${file}: ${says}` });
    });
  }

  it("loads a well-formed kubeconfig, resolving relative file paths against its directory", () => {
    const path = join(dir.path, "good");
    writeFileSync(join(dir.path, "ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    writeFileSync(
      path,
      `clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:6443", certificate-authority: ca.pem }\n${USER}${CONTEXT}current-context: x\n`,
    );
    const config = loadKubeconfigFile(path);
    assert.equal(config.getCurrentCluster()?.server, "https://127.0.0.1:6443");
    assert.equal(config.getCurrentCluster()?.caFile, join(dir.path, "ca.pem"));
  });

  // The files the current context names are read at each request by the client library: each is read once at load,
  // within the bound, and refused by its key and path.
  const namedFiles: Array<{ name: string; cluster: string; user: string; says: (d: string) => string }> = [
    {
      name: "a CA file that never ends (/dev/zero)",
      cluster: "certificate-authority: /dev/zero",
      user: "token: t",
      says: () => "certificate-authority: /dev/zero: cannot read: larger than 16777216 bytes",
    },
    {
      name: "a missing client certificate",
      cluster: "insecure-skip-tls-verify: true",
      user: "client-certificate: missing.crt, client-key: k.pem",
      says: (d) => `client-certificate: ${join(d, "missing.crt")}: cannot read: no such file`,
    },
    {
      name: "a token file that never ends (/dev/zero), which the client reads while it parses",
      cluster: "insecure-skip-tls-verify: true",
      user: "token-file: /dev/zero",
      says: () => "users[0].user.token-file: /dev/zero: cannot read: larger than 16777216 bytes",
    },
    {
      name: "an auth-provider token file that is missing",
      cluster: "insecure-skip-tls-verify: true",
      user: "auth-provider: { name: file, config: { tokenFile: /nonexistent/kintsugi-token } }",
      says: () => "auth-provider.config.tokenFile: /nonexistent/kintsugi-token: cannot read: no such file",
    },
    {
      name: "a client key that is a directory",
      cluster: "insecure-skip-tls-verify: true",
      user: "client-certificate: c.pem, client-key: .",
      says: (d) => `client-key: ${d}: cannot read: is a directory`,
    },
  ];
  for (const { name, cluster, user, says } of namedFiles) {
    it(`refuses a file the current context names that it cannot read: ${name}`, () => {
      const sub = join(dir.path, name.replaceAll(" ", "-").replace(/[()/]/g, ""));
      mkdirSync(sub, { recursive: true });
      writeFileSync(join(sub, "c.pem"), "-----BEGIN CERTIFICATE-----\n");
      writeFileSync(join(sub, "k.pem"), "-----BEGIN PRIVATE KEY-----\n");
      const path = join(sub, "kubeconfig");
      writeFileSync(
        path,
        `clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:6443", ${cluster} }\nusers:\n- name: u\n  user: { ${user} }\n${CONTEXT}current-context: x\n`,
      );
      assert.throws(() => loadKubeconfigFile(path), { name: "ConfigError", message: `${path}: ${says(sub)}` });
    });
  }
});
