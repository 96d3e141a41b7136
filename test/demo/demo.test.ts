import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const DEMO = fileURLToPath(new URL("../../scripts/demo.ts", import.meta.url));

describe("npm run demo", () => {
  it("runs a simulated data center: prints where to look, generates the cluster, repairs machines, and holds back a rack-wide failure", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", DEMO, "--port", "0", "--fast", "--duration", "120"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const until = async (what: string, check: () => boolean, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; output:\n${out.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      await until("it prints the GraphiQL URL", () => /GraphiQL: +http:\/\/127\.0\.0\.1:\d+\//.test(out));
      const url = /GraphiQL: +(http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1] as string;
      assert.match(out, /subscription \{\n\s+repairEntryEvents/);
      const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ repairQueueEnabled }" }) });
      assert.deepEqual(await res.json(), { data: { repairQueueEnabled: true } });
      await until("a cluster is generated", () => out.includes("[kintsugi] cluster generation 1: initialize the cluster from the template: 15 nodes"));
      await until("a machine is repaired", () => out.includes("the health check reports the machine healthy"));
      await until("the rack-wide failure is held back", () => /held back 6 machines: rack 3: 6 unhealthy machines, likely an infrastructure failure/.test(out));
      assert.doesNotMatch(out, /10\.69\.3\.\d+: step 1: draining/, "no machine of the failed rack is repaired");
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
