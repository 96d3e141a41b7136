import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadKubeconfigFile } from "../../src/adapters/kubeconfig-file.js";
import { ConfigError } from "../../src/config/load-config.js";
import { tempDir } from "../support/temp-dir.js";

/** A token and a client key that must never leave the file, in any message about it. */
export const SECRET = "SECRET-abc123";
const KEY = Buffer.from(`-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`).toString("base64");

const cluster = `clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:6443", certificate-authority-data: ${KEY} }\n`;
const user = `users:\n- name: u\n  user: { token: ${SECRET}, client-key-data: ${KEY} }\n`;
const context = `contexts:\n- name: x\n  context: { cluster: c, user: u }\n`;

/** Malformed kubeconfigs, each with the secret near what is wrong, and what the error must say instead. */
export const MALFORMED_KUBECONFIGS: ReadonlyArray<{ name: string; text: string; says: RegExp }> = [
  { name: "bad indentation", text: `${user}   bad: [\n`, says: /is not valid YAML at line 4, column 4 \(bad indentation of a mapping entry\)$/ },
  { name: "a tab in the indentation", text: `users:\n\t- token: ${SECRET}\n`, says: /is not valid YAML at line 2, column 1 \(tab characters must not be used in indentation\)$/ },
  { name: "an unclosed quote", text: `users:\n- name: u\n  user: { token: "${SECRET}\n`, says: /is not valid YAML at line 4, column 1 \(unexpected end of the stream within a double quoted scalar\)$/ },
  { name: "a duplicated key", text: `${user}${user}`, says: /is not valid YAML at line 4, column 1 \(duplicated mapping key\)$/ },
  { name: "broken JSON", text: `{"users": [{"name": "u", "user": {"token": "${SECRET}"}}], "clusters": [ }`, says: /is not valid YAML at line 1, column 78 \(missed comma between flow collection entries\)$/ },
  { name: "the secret as an alias", text: `users:\n- name: u\n  user: *${SECRET}\n`, says: /is not valid YAML at line 3, column 23 \(unidentified alias "…"\)$/ },
  { name: "the secret behind a tag", text: `users: !<${SECRET}> x\n`, says: /is not valid YAML at line 1, column 26 \(unknown tag !<…>\)$/ },
  { name: "a malformed tag name", text: `users: !a!${SECRET} x\n`, says: /is not valid YAML at line 1, column \d+ \(undeclared tag handle "…"\)$/ },
  { name: "a user without a name", text: `${cluster}users:\n- user: { token: ${SECRET} }\n`, says: /is malformed: users\[0\]\.name is missing$/ },
  { name: "a cluster without a server", text: `clusters:\n- name: c\n  cluster: { certificate-authority-data: ${KEY} }\n${user}`, says: /is malformed: clusters\[0\]\.cluster\.server is missing$/ },
  { name: "an empty file", text: "", says: /is malformed: it is empty, or its top level/ },
  { name: "a user that is null", text: `users: [null, "${SECRET}"]\n`, says: /is malformed: it is empty, or its top level/ },
  { name: "no current-context", text: `${cluster}${user}${context}`, says: /the kubeconfig has no current-context$/ },
  { name: "only the secret", text: `${SECRET}\n`, says: /the kubeconfig has no current-context$/ },
  { name: "a current-context that is not defined", text: `${cluster}${user}${context}current-context: ${SECRET}\n`, says: /current-context names a context it does not define$/ },
  { name: "a context naming a missing cluster", text: `${user}contexts:\n- name: x\n  context: { cluster: ${SECRET}, user: u }\ncurrent-context: x\n`, says: /current context names a cluster it does not define$/ },
];

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
          for (const leaked of [SECRET, KEY.slice(0, 16), "token", "user:"]) assert.ok(!err.message.includes(leaked), `${leaked} in ${err.message}`);
          assert.ok(!JSON.stringify(err).includes(SECRET), "nor in any other property");
          return true;
        },
      );
    });
  }

  const unreadable: Array<{ name: string; path: () => string; says: string }> = [
    { name: "a missing file", path: () => join(dir.path, "nope"), says: "cannot read the kubeconfig: no such file" },
    { name: "a directory", path: () => { mkdirSync(join(dir.path, "d"), { recursive: true }); return join(dir.path, "d"); }, says: "cannot read the kubeconfig: is a directory" },
  ];
  for (const { name, path, says } of unreadable) {
    it(`names a file it cannot read: ${name}`, () => {
      const file = path();
      assert.throws(() => loadKubeconfigFile(file), { name: "ConfigError", message: `${file}: ${says}` });
    });
  }

  it("loads a well-formed kubeconfig, resolving relative file paths against its directory", () => {
    const path = join(dir.path, "good");
    writeFileSync(path, `clusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:6443", certificate-authority: ca.pem }\n${user}${context}current-context: x\n`);
    const config = loadKubeconfigFile(path);
    assert.equal(config.getCurrentCluster()?.server, "https://127.0.0.1:6443");
    assert.equal(config.getCurrentCluster()?.caFile, join(dir.path, "ca.pem"));
  });
});
