import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_BMC_TYPE_LENGTH, machineBmcOf } from "../../../src/domain/sabakan/machine-bmc.js";

describe("machineBmcOf", () => {
  const cases: Array<[string, unknown, unknown, ReturnType<typeof machineBmcOf>]> = [
    ["an IPv4 literal and sabakan's type", "10.72.1.5", "IPMI-2.0", { address: "10.72.1.5", type: "IPMI-2.0" }],
    ["a type with a slash and a dot (sabakan allows them)", "10.0.0.1", "iDRAC/9.1", { address: "10.0.0.1", type: "iDRAC/9.1" }],
    ["no address", undefined, "IPMI-2.0", null],
    ["an empty address", "", "IPMI-2.0", null],
    ["an option in place of the address", "-oProxyCommand=sh", "IPMI-2.0", null],
    ["a second argument after the address", "10.0.0.1 -p 1", "IPMI-2.0", null],
    ["a newline after the address", "10.0.0.1\n", "IPMI-2.0", null],
    ["leading zeros (octal to some tools)", "010.0.0.1", "IPMI-2.0", null],
    ["an IPv6 address (the field is sabakan's ipv4)", "fd00::1", "IPMI-2.0", null],
    ["a host name", "bmc.example", "IPMI-2.0", null],
    ["a number", 167772161, "IPMI-2.0", null],
    ["a type with a space is kept empty", "10.0.0.1", "IPMI 2.0", { address: "10.0.0.1", type: "" }],
    ["a type with a control character is kept empty", "10.0.0.1", "IPMI\u001b[2J", { address: "10.0.0.1", type: "" }],
    [
      `a type of ${MAX_BMC_TYPE_LENGTH} characters is kept`,
      "10.0.0.1",
      "t".repeat(MAX_BMC_TYPE_LENGTH),
      { address: "10.0.0.1", type: "t".repeat(MAX_BMC_TYPE_LENGTH) },
    ],
    ["a longer type is kept empty", "10.0.0.1", "t".repeat(MAX_BMC_TYPE_LENGTH + 1), { address: "10.0.0.1", type: "" }],
    ["no type", "10.0.0.1", null, { address: "10.0.0.1", type: "" }],
  ];
  for (const [name, ipv4, type, want] of cases) it(name, () => assert.deepEqual(machineBmcOf(ipv4, type), want));
});
