import { isIPv4, isIPv6 } from "node:net";

/** The outcome of reading an address: its canonical spelling, or why it is not an address. */
export type AddressResult = { readonly ok: true; readonly address: string } | { readonly ok: false; readonly message: string };

/**
 * Reads an IPv4 or IPv6 address and returns its canonical spelling (IPv6 compressed and lower-case), so that two
 * spellings of one machine's address never make two entries. Rejects anything else with a message naming the value.
 */
export function parseAddress(input: string): AddressResult {
  const trimmed = input.trim();
  if (isIPv4(trimmed)) return { ok: true, address: trimmed };
  if (isIPv6(trimmed) && !trimmed.includes("%")) {
    // The WHATWG URL parser writes IPv6 hosts in RFC 5952's canonical form; it is pure computation.
    return { ok: true, address: new URL(`http://[${trimmed}]/`).hostname.slice(1, -1) };
  }
  return { ok: false, message: `invalid IP address: ${JSON.stringify(input)}` };
}
