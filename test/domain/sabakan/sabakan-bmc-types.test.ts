import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bmcTypeDifferingInCase } from "../../../src/domain/sabakan/sabakan-bmc-types.js";

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
