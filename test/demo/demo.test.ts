import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { startDemo, storyLines } from "../support/demo-process.js";
import { tempDir } from "../support/temp-dir.js";

/** A folder for the demo's temporary folders (its TMPDIR), to see that it leaves none (tsx keeps its cache there too). */
function demoTmp(): { readonly env: NodeJS.ProcessEnv; left(): string[]; remove(): void } {
  const dir = tempDir("kintsugi-demo-test-");
  return { env: { TMPDIR: dir.path }, left: () => readdirSync(dir.path).filter((name) => !name.startsWith("tsx-")), remove: dir.remove };
}

describe("npm run demo", () => {
  it("runs a simulated data center: prints where to look, generates the cluster, repairs machines, and holds back a rack-wide failure", async () => {
    const tmp = demoTmp();
    const demo = startDemo(["--port", "0", "--fast", "--duration", "120"], tmp.env);
    try {
      const url = await demo.url();
      assert.match(demo.stdout(), /subscription \{\n\s+repairEntryEvents/);
      const res = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ repairQueueEnabled }" }),
      });
      assert.deepEqual(await res.json(), { data: { repairQueueEnabled: true } });
      await demo.untilStdout("a cluster is generated", (out) =>
        out.includes("[kintsugi] cluster generation 1: initialize the cluster from the template: 15 nodes"),
      );
      await demo.untilStdout("a machine is drained", (out) => /\[kintsugi\] #\d+ 10\.69\.\d\.\d: step 1: draining node node-r\dm\d/.test(out));
      await demo.untilStdout("a machine is repaired", (out) => out.includes("the health check reports the machine healthy"));
      await demo.untilStdout("the rack-wide failure is held back", (out) =>
        /\[kintsugi\] holds back rack 3 \(6 machines\): rack 3: 6 unhealthy machines, likely an infrastructure failure/.test(out),
      );
      assert.doesNotMatch(demo.stdout(), /10\.69\.3\.\d+: step 1: draining/, "no machine of the failed rack is repaired");
      assert.equal(await demo.stop(), 0);
      // The story is readable: after the banner, stdout holds story lines only; kintsugi's own log goes to stderr.
      const afterBanner = demo.stdout().slice(demo.stdout().indexOf("Ctrl-C to stop.") + "Ctrl-C to stop.".length);
      const stray = afterBanner.split("\n").filter((line) => line.trim() !== "" && line !== "kintsugi demo stopped" && storyLines(line).length === 0);
      assert.deepEqual(stray, [], "every line of the story is `mm:ss [teller] text`");
      assert.deepEqual(tmp.left(), [], "stopped, it leaves no temporary folder");
    } finally {
      demo.kill();
      tmp.remove();
    }
  });

  it("a busy port: one line saying so and what to do (--port), exit 1, and no temporary folder left", async () => {
    const tmp = demoTmp();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as AddressInfo;
    const demo = startDemo(["--port", String(port)], tmp.env);
    try {
      assert.equal(await demo.exited(), 1);
      assert.equal(
        demo.stderr(),
        `npm run demo: 127.0.0.1:${port} is already in use (another demo, a kintsugi, or another program): stop it, or run the demo on another port: npm run demo -- --port ${port + 1} (--port 0 takes any free port)\n`,
      );
      assert.equal(demo.stdout(), "");
      assert.deepEqual(tmp.left(), [], "no temporary folder left");
    } finally {
      demo.kill();
      await new Promise((resolve) => busy.close(resolve));
      tmp.remove();
    }
  });

  it("refuses a bad option with a message naming it, and the usage", async () => {
    const demo = startDemo(["--scale", "fast"]);
    try {
      assert.equal(await demo.exited(), 2);
      assert.match(demo.stderr(), /--scale: must be a number from 0\.001 to 10, got "fast"\nusage: npm run demo -- /);
    } finally {
      demo.kill();
    }
  });
});
