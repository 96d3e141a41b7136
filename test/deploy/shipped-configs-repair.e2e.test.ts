import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { KintsugiClient } from "../../src/cli/client.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { ipmiSimSkip, startIpmiSim } from "../support/ipmi-sim.js";
import { serveProcess } from "../support/serve-process.js";
import { installShippedConfig } from "../support/shipped-config.js";
import { testServerCertificate } from "../support/test-ca.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

// Every config shipped in deploy/ installed as an operator installs it (only its endpoints are this machine's; a
// Pod's in-cluster credentials become a kubeconfig, which a test outside a Pod must use), with deploy/commands in
// /usr/local/libexec/kintsugi, against Debian's BMC simulator (ipmi_sim) through the real `kintsugi serve`. A machine
// whose OS hangs with the power on is what sabakan calls UNREACHABLE: the shipped health check (chassis power) says
// "true", so without proof of repair CKE's rule would call the entry repaired at once. With the shipped
// `success_requires: [sabakan_healthy]` it is power-cycled, and called repaired only once sabakan says HEALTHY.

const CONFIGS = ["deploy/kintsugi.yaml", "deploy/kintsugi-etcd.yaml", "deploy/kubernetes/sqlite/kintsugi.yaml", "deploy/kubernetes/etcd/kintsugi.yaml"];
const HUNG = { serial: "hung-1", rack: 1, indexInRack: 1, ipv4: ["10.1.0.1"], bmcType: "IPMI-2.0", bmcIPv4: "127.0.0.1", state: "UNREACHABLE" as const };
const ENTRY = `query($i: ID!) { repairEntry(index: $i) { status history { reason } } }`;

interface Entry {
  status: string;
  history: Array<{ reason: string }>;
}

/** A TLS etcd serving the test CA's certificate, taking client certificates of the same CA, as the etcd configs expect. */
async function tlsEtcd(dir: string): Promise<TestEtcd> {
  const server = await testServerCertificate();
  const files = { certFile: join(dir, "etcd.crt"), keyFile: join(dir, "etcd.key"), clientCaFile: join(dir, "etcd-ca.crt") };
  writeFileSync(files.certFile, server.certPem);
  writeFileSync(files.keyFile, server.keyPem, { mode: 0o600 });
  writeFileSync(files.clientCaFile, server.ca.certPem);
  return startTestEtcd({ tls: files });
}

describe("every shipped config repairs by what broke: an UNREACHABLE machine with its power on", { concurrency: true }, () => {
  const skip = ipmiSimSkip() || false;
  for (const path of CONFIGS) {
    const text = readFileSync(path, "utf8");
    const onEtcd = /^store: etcd$/m.test(text);
    it(path, { skip: skip || (onEtcd && ETCD_SKIP) }, async () => {
      const dir = tempDir("kintsugi-shipped-repair-");
      const sim = await startIpmiSim(dir.path, 1);
      const sabakan = await startFakeSabakan();
      const kube = await startFakeKubeApi();
      const etcd = onEtcd ? await tlsEtcd(dir.path) : null;
      sabakan.addMachine(HUNG);
      const installed = await installShippedConfig(text, "kintsugi.yaml", {
        endpoints: { sabakanUrl: sabakan.url, kubernetesUrl: kube.url, ...(etcd && { etcdEndpoints: etcd.endpoints }) },
        commands: "shipped",
      });
      // The BMC's credentials where the shipped commands read them; its port, as the unit's Environment= would name it.
      const etc = join(installed.root, "etc/kintsugi");
      mkdirSync(etc, { recursive: true });
      copyFileSync(sim.userFile, join(etc, "ipmi-user"));
      copyFileSync(sim.passwordFile, join(etc, "ipmi-password"));
      const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KINTSUGI_")));
      const env = {
        ...inherited,
        ...installed.env,
        KINTSUGI_IPMI_PORT: String(sim.port),
        KINTSUGI_IPMI_USER_FILE: join(etc, "ipmi-user"),
        KINTSUGI_IPMI_PASSWORD_FILE: join(etc, "ipmi-password"),
      };
      const server = serveProcess(["--config", installed.file], installed.root, env);
      try {
        const url = await server.url;
        const ca = join(installed.root, "ca.pem");
        if (installed.caPem) writeFileSync(ca, installed.caPem);
        const tls = installed.caPem ? ["--ca", ca] : [];
        const added = await runCliInProcess(["--server", url, ...tls, "repair-queue", "add", "unreachable", "IPMI-2.0", "10.1.0.1"], {
          env: { ...inherited, KINTSUGI_TOKEN: installed.token ?? "" },
        });
        assert.equal(added.code, 0, added.stderr);
        const client = new KintsugiClient(url, installed.token, installed.caPem ? { ca: installed.caPem } : null);
        const entry = async () => (await client.request<{ repairEntry: Entry }>(ENTRY, { i: "1" })).repairEntry;
        const reasons = (e: Entry) => e.history.map((h) => h.reason).join("\n");
        const sets = () => sim.chassisCalls().filter((call) => call.startsWith("set "));

        await until("the machine is power-cycled", sets, (s) => s.length >= 2, 60_000);
        assert.deepEqual(sets(), ["set power 0", "set power 1"], "off, then on");
        // A pass after the power cycle: the power is on (health check "true"), sabakan still says UNREACHABLE.
        const judged = await until(
          "a pass finds the power on but sabakan not HEALTHY",
          entry,
          (e) => /signals now missing: sabakan_healthy/.test(reasons(e)),
          60_000,
        );
        assert.equal(judged.status, "PROCESSING", reasons(judged));

        sabakan.setState(HUNG.serial, "HEALTHY");
        const done = await until("the entry succeeds", entry, (e) => e.status === "SUCCEEDED" || e.status === "FAILED", 60_000);
        assert.equal(done.status, "SUCCEEDED", reasons(done));
        assert.match(reasons(done), /sabakan_healthy/);
        assert.deepEqual(sets(), ["set power 0", "set power 1"], "power-cycled once");
        assert.equal(readFileSync(installed.siteToolCalls, "utf8"), "", "no site tool ran (no reboot, no notification)");
        server.child.kill("SIGTERM");
        assert.equal(await server.exited, 0);
      } finally {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
        await server.exited;
        sim.stop();
        await sabakan.close();
        await kube.close();
        await etcd?.stop();
        installed.remove();
        dir.remove();
      }
    });
  }
});
