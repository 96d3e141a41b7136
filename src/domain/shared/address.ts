import { isIPv4, isIPv6 } from "node:net";
import { quoteUntrusted } from "./untrusted-text.js";

/** The outcome of reading an address: its canonical spelling, or why it is not an address. */
export type AddressResult = { readonly ok: true; readonly address: string } | { readonly ok: false; readonly message: string };

// `::ffff:a.b.c.d` (RFC 4291's IPv4-mapped IPv6 address) once canonicalised as the URL parser writes it.
const IPV4_MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * Reads an IPv4 or IPv6 address and returns its canonical spelling, so that two spellings of one machine's address
 * never make two entries: IPv4 as written (no leading zeros are accepted), an IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.3`) as its IPv4 address, any other IPv6 compressed and lower-case (RFC 5952). Rejects anything
 * else (a hostname, an option such as `-rf`, control characters, a zone, a CIDR, "") with a message quoting the
 * value with its control characters escaped. This is the one rule for every address kintsugi takes in: the API,
 * sabakan's `spec.ipv4`, Kubernetes Nodes' InternalIPs.
 */
export function parseAddress(input: string): AddressResult {
  const trimmed = input.trim();
  if (isIPv4(trimmed)) return { ok: true, address: trimmed };
  if (isIPv6(trimmed) && !trimmed.includes("%")) {
    // The WHATWG URL parser writes IPv6 hosts in RFC 5952's canonical form; it is pure computation.
    const canonical = new URL(`http://[${trimmed}]/`).hostname.slice(1, -1);
    const mapped = IPV4_MAPPED.exec(canonical);
    if (!mapped) return { ok: true, address: canonical };
    const [high, low] = [parseInt(mapped[1] as string, 16), parseInt(mapped[2] as string, 16)];
    return { ok: true, address: [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".") };
  }
  return { ok: false, message: `invalid IP address: ${quoteUntrusted(input)}` };
}

/** The canonical spellings of those of `values` that are addresses, in order, without repeats; the rest dropped. */
export function canonicalAddresses(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    const parsed = parseAddress(value);
    if (parsed.ok && !out.includes(parsed.address)) out.push(parsed.address);
  }
  return out;
}
