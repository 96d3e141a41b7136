import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { startDemo } from "../support/demo-process.js";
import { demoTmp } from "./demo-tmp.js";

// The demo's run itself (banner, story, a clean stop) is checked by demo-long-run.test.ts, on one 15-minute run.
describe("npm run demo", () => {
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
