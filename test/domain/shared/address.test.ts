import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalAddresses, parseAddress } from "../../../src/domain/shared/address.js";

describe("parseAddress", () => {
  const cases: Array<[string, string, string | null]> = [
    ["IPv4", "10.69.0.3", "10.69.0.3"],
    ["IPv4 with surrounding spaces", " 10.69.0.3 ", "10.69.0.3"],
    ["IPv6 compressed", "fd00::1", "fd00::1"],
    ["IPv6 upper-case and expanded", "FD00:0000:0000:0000:0000:0000:0000:0001", "fd00::1"],
    ["IPv4-mapped IPv6, dotted", "::ffff:10.0.0.3", "10.0.0.3"],
    ["IPv4-mapped IPv6, hexadecimal", "::ffff:a00:3", "10.0.0.3"],
    ["IPv4-mapped IPv6, expanded and upper-case", "0:0:0:0:0:FFFF:0A00:0003", "10.0.0.3"],
    ["IPv4-mapped IPv6 of the highest address", "::ffff:255.255.255.255", "255.255.255.255"],
    ["IPv4-compatible IPv6 (not mapped) stays IPv6", "::10.0.0.3", "::a00:3"],
    ["IPv6 that only ends like a mapped one", "1::ffff:a00:3", "1::ffff:a00:3"],
    ["IPv4 octet over 255", "10.0.0.256", null],
    ["IPv4 with a leading zero", "10.0.0.01", null],
    ["three octets", "10.0.1", null],
    ["a hostname", "rack1-node3", null],
    ["an IPv6 zone", "fe80::1%eth0", null],
    ["empty", "", null],
    ["only spaces", "   ", null],
    ["a CIDR", "10.0.0.0/24", null],
    ["an option", "-rf", null],
    ["an option with a value", "--output=/etc/x", null],
    ["an escape sequence", "\u001b[2J10.0.0.3", null],
    ["an address with a NUL inside", "10.0.\u00000.3", null],
    ["two addresses", "10.0.0.3 10.0.0.4", null],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const got = parseAddress(input);
      if (want === null) {
        assert.equal(got.ok, false);
        assert.match(got.ok ? "" : got.message, /^invalid IP address: "/);
      } else {
        assert.deepEqual(got, { ok: true, address: want });
      }
    });
  }

  it("quotes a rejected value with its control characters escaped", () => {
    assert.deepEqual(parseAddress("\u001b[31m-rf\r\n"), { ok: false, message: 'invalid IP address: "\\x1b[31m-rf\\x0d\\x0a"' });
  });
});

describe("canonicalAddresses", () => {
  const cases: Array<[string, string[], string[]]> = [
    ["keeps addresses in order", ["10.0.0.2", "fd00::1"], ["10.0.0.2", "fd00::1"]],
    ["canonicalises each", ["::ffff:10.0.0.3", "FD00::0001"], ["10.0.0.3", "fd00::1"]],
    ["drops what is not an address", ["-rf", "10.0.0.3", "\u001b[2J", ""], ["10.0.0.3"]],
    ["drops a second spelling of one address", ["10.0.0.3", "::ffff:10.0.0.3"], ["10.0.0.3"]],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.deepEqual(canonicalAddresses(input), want));
});
