import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SabakanClient } from "../../src/adapters/sabakan-client.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";

const KINTSUGI_NOW = Date.parse("2026-11-23T10:00:00Z");

describe("SabakanClient dates a state change by status.duration on kintsugi's clock", () => {
  const cases = [
    { name: "sabakan's clock 1 hour ahead of kintsugi's", skewMs: 3_600_000 },
    { name: "sabakan's clock 1 hour behind kintsugi's", skewMs: -3_600_000 },
    { name: "the same clock", skewMs: 0 },
  ];
  for (const c of cases) {
    it(`${c.name}: a state entered 20 s ago is 20 s old`, async () => {
      const sabakanNow = KINTSUGI_NOW + c.skewMs;
      const sabakan = await startFakeSabakan({ now: () => sabakanNow });
      try {
        sabakan.addMachine({ serial: "s1", rack: 0, indexInRack: 1, ipv4: ["10.0.0.1"], state: "UNREACHABLE", stateSince: sabakanNow - 20_000 });
        const client = new SabakanClient({ url: sabakan.url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, now: () => KINTSUGI_NOW });
        const [machine] = await client.searchMachines({ having: null, notHaving: null });
        assert.equal(machine?.durationSeconds, 20);
        assert.equal(machine?.stateSince, KINTSUGI_NOW - 20_000);
      } finally {
        await sabakan.close();
      }
    });
  }
});

describe("SabakanClient keeps a machine's BMC only when sabakan gives an IPv4 literal for it", () => {
  const cases = [
    { name: "an IPv4 address", bmcIPv4: "10.72.1.5", want: { address: "10.72.1.5", type: "IPMI-2.0" } },
    { name: "an option in place of the address", bmcIPv4: "-oProxyCommand=sh", want: undefined },
    { name: "an address followed by a second argument", bmcIPv4: "10.72.1.5 -p 1", want: undefined },
    { name: "a host name", bmcIPv4: "bmc.example", want: undefined },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.want ? "kept" : "left out, the rest of the machine kept"}`, async () => {
      const sabakan = await startFakeSabakan({ now: () => KINTSUGI_NOW });
      try {
        sabakan.addMachine({ serial: "s1", rack: 0, indexInRack: 1, ipv4: ["10.0.0.1"], bmcIPv4: c.bmcIPv4 });
        const client = new SabakanClient({ url: sabakan.url, timeoutMs: 10_000, maxResponseBytes: 1 << 20, now: () => KINTSUGI_NOW });
        const [machine] = await client.searchMachines({ having: null, notHaving: null });
        assert.equal(machine?.serial, "s1");
        assert.deepEqual(machine?.bmc, c.want);
      } finally {
        await sabakan.close();
      }
    });
  }
});
