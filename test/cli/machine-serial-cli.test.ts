import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";

describe("kintsugi machine hold and release by serial (looked up in sabakan through kintsugi)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);

  before(async () => {
    sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: "SN-0001", rack: 0, ipv4: ["10.0.0.7", "10.1.0.7"], state: "HEALTHY" });
    sabakan.addMachine({ serial: "SN-NOIP", rack: 0, ipv4: [], state: "HEALTHY" });
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 22 } },
      { startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("holds a machine named by its serial under its first IPv4 address, and releases it by serial", async () => {
    const held = await cli("machine", "hold", "SN-0001", "--reason", "disk swap");
    assert.equal(held.code, 0, held.stderr);
    assert.equal((JSON.parse(held.stdout) as { address: string }).address, "10.0.0.7");
    const released = await cli("machine", "release", "SN-0001");
    assert.equal(released.code, 0, released.stderr);
    assert.equal((JSON.parse(released.stdout) as { address: string }).address, "10.0.0.7");
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["a serial sabakan does not know", ["machine", "hold", "SN-9999", "--reason", "x"], /^kintsugi: .*not found/im],
    ["a machine without an IPv4 address", ["machine", "hold", "SN-NOIP", "--reason", "x"], /^kintsugi: machine SN-NOIP: sabakan lists no IPv4 address for it/],
    ["a hold without a reason, before asking anything", ["machine", "hold", "SN-0001"], /^kintsugi: machine hold: --reason TEXT is required/],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name} with exit 1, holding nothing`, async () => {
      const result = await cli(...args);
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, message);
      assert.deepEqual(JSON.parse((await cli("machine", "holds", "--json")).stdout), []);
    });
  }
});
