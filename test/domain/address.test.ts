import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAddress } from "../../src/domain/address.js";

describe("parseAddress", () => {
  const cases: Array<[string, string, string | null]> = [
    ["IPv4", "10.69.0.3", "10.69.0.3"],
    ["IPv4 with surrounding spaces", " 10.69.0.3 ", "10.69.0.3"],
    ["IPv6 compressed", "fd00::1", "fd00::1"],
    ["IPv6 upper-case and expanded", "FD00:0000:0000:0000:0000:0000:0000:0001", "fd00::1"],
    ["IPv6 with embedded IPv4", "::ffff:10.0.0.1", "::ffff:a00:1"],
    ["IPv4 octet over 255", "10.0.0.256", null],
    ["IPv4 with a leading zero", "10.0.0.01", null],
    ["three octets", "10.0.1", null],
    ["a hostname", "rack1-node3", null],
    ["an IPv6 zone", "fe80::1%eth0", null],
    ["empty", "", null],
    ["a CIDR", "10.0.0.0/24", null],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const got = parseAddress(input);
      if (want === null) {
        assert.equal(got.ok, false);
        assert.match(got.ok ? "" : got.message, /^invalid IP address: /);
      } else {
        assert.deepEqual(got, { ok: true, address: want });
      }
    });
  }
});
