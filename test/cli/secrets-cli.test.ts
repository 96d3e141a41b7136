import assert from "node:assert/strict";
import { chmodSync, chownSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../support/in-process-cli.js";
import { runAsForFileModes } from "../support/run-as-nobody.js";
import { serveProcess } from "../support/serve-process.js";
import { MALFORMED_KUBECONFIGS, SECRET, SECRET_KEY_DATA } from "../support/malformed-kubeconfigs.js";
import { tempDir } from "../support/temp-dir.js";

/**
 * Runs the real `kintsugi serve` on `config` in a fresh directory holding `files` (with their `modes`), as `as` if
 * given, and returns its stderr; it must refuse to start.
 */
async function refusedServe(
  config: string,
  files: Record<string, string>,
  modes: Record<string, number> = {},
  as?: { uid: number; gid: number },
): Promise<string> {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "k.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\n${config}`);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, name), text);
    for (const [name, mode] of Object.entries(modes)) chmodSync(join(dir.path, name), mode);
    if (as) {
      chownSync(dir.path, as.uid, as.gid);
      chownSync(join(dir.path, "k.yaml"), as.uid, as.gid);
    }
    const server = serveProcess(["--config", "k.yaml"], dir.path, undefined, as);
    assert.equal(await server.exitCode(), 1, server.stderr());
    return server.stderr();
  } finally {
    dir.remove();
  }
}

function assertNoSecret(stderr: string): void {
  for (const secret of [SECRET, SECRET_KEY_DATA.slice(0, 16), "SECRET"]) assert.ok(!stderr.includes(secret), `${secret} in ${stderr}`);
}

describe("kintsugi serve and check-config never print a secret", () => {
  // One of each kind: bad YAML, a wrong shape, no current context, a current context that leads nowhere.
  const shapes = ["bad indentation", "the secret as an alias", "a user without a name", "no current-context", "a current-context that is not defined"];
  for (const shape of shapes) {
    it(`serve refuses a malformed kubeconfig by name and reason, without its content: ${shape}`, async () => {
      const kubeconfig = MALFORMED_KUBECONFIGS.find((k) => k.name === shape);
      assert.ok(kubeconfig);
      const stderr = await refusedServe("kubernetes: { kubeconfig: ./kc }\n", { kc: kubeconfig.text });
      assert.match(stderr, /^kintsugi: k\.yaml: kubernetes\.kubeconfig: \.\/kc: /);
      assert.match(stderr.trimEnd(), kubeconfig.says);
      assertNoSecret(stderr);
    });
  }

  // File modes do not stop root: as root, kintsugi runs as nobody, and the file stays root's alone.
  const { as, skip } = runAsForFileModes();
  it("serve refuses an unreadable kubeconfig by name, without its content", { skip }, async () => {
    const stderr = await refusedServe(
      "kubernetes: { kubeconfig: ./kc }\n",
      { kc: `users:\n- name: u\n  user: { token: ${SECRET} }\n` },
      { kc: as ? 0o600 : 0o000 },
      as,
    );
    assert.equal(stderr, "kintsugi: k.yaml: kubernetes.kubeconfig: ./kc: cannot read the kubeconfig: permission denied\n");
  });

  const withCredentials = "sabakan: { url: 'http://kintsugi:SECRET-pw@127.0.0.1:10080' }\n";
  it("check-config refuses credentials in sabakan.url without showing them", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "k.yaml"), withCredentials);
      const res = await runCliInProcess(["check-config", "k.yaml"], { cwd: dir.path });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /^kintsugi: k\.yaml: sabakan\.url: must not hold a user name or password/);
      assertNoSecret(res.stderr + res.stdout);
    } finally {
      dir.remove();
    }
  });

  it("serve refuses credentials in sabakan.url without showing them", async () => {
    const stderr = await refusedServe(withCredentials, {});
    assert.match(stderr, /^kintsugi: k\.yaml: sabakan\.url: must not hold a user name or password/);
    assertNoSecret(stderr);
  });
});
