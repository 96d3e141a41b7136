import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_BMC_TYPE_LENGTH, bmcTypeDifferingInCase, machineBmcOf } from "../../../src/domain/sabakan/machine-bmc.js";

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

describe("bmcTypeDifferingInCase: a machine type that is a known sabakan BMC type in the wrong case", () => {
  const cases: Array<{ name: string; value: string; want: string | null }> = [
    { name: "sabakan's IPMI-2.0 as written", value: "IPMI-2.0", want: null },
    { name: "sabakan's iDRAC-9 as written", value: "iDRAC-9", want: null },
    { name: "IPMI-2.0 in lower case (the old examples)", value: "ipmi-2.0", want: "IPMI-2.0" },
    { name: "IPMI-2.0 in mixed case", value: "Ipmi-2.0", want: "IPMI-2.0" },
    { name: "iDRAC-9 in upper case", value: "IDRAC-9", want: "iDRAC-9" },
    { name: "iDRAC-9 in lower case", value: "idrac-9", want: "iDRAC-9" },
    { name: "a custom type is allowed", value: "qemu", want: null },
    { name: "another version is another type, not a case slip", value: "ipmi-1.0", want: null },
    { name: "a type that only contains a known one", value: "ipmi-2.0-lan", want: null },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(bmcTypeDifferingInCase(c.value), c.want));
  }
});
