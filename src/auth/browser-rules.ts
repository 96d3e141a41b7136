import { isIP } from "node:net";

/**
 * Whether a host name or address (as in `listen`, or the host part of a Host header, IPv6 with or without
 * brackets) is a loopback one: `localhost` and names under `.localhost` (RFC 6761), 127.0.0.0/8, ::1 and
 * IPv4-mapped 127.x.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (isIP(name) === 4) return name.startsWith("127.");
  if (isIP(name) === 6) return name === "::1" || name === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(name) || /^::ffff:7f[0-9a-f]{2}:/.test(name);
  return false;
}

/** The host part of a Host header (lower-case; IPv6 in brackets), or null when the header is not a host[:port]. */
export function hostOfHostHeader(header: string): string | null {
  if (header === "" || /[\s/?#@\\]/.test(header)) return null;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return null;
  }
}

/** An origin as browsers write it (`scheme://host[:port]`, default port left out), or null when `text` is none. */
export function normalizeOrigin(text: string): string | null {
  try {
    const url = new URL(text);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.origin;
  } catch {
    return null;
  }
}

export interface BrowserRules {
  /** The listener is on a loopback address: the Host header must then name a loopback host or an allowed name. */
  readonly loopbackListener: boolean;
  /**
   * `auth.allowed_hosts`, lower-case: names a loopback listener answers to besides loopback ones, and names under
   * which a listener on another address serves requests without credentials.
   */
  readonly allowedHosts: readonly string[];
  /** Browser origins besides kintsugi's own (`auth.allowed_origins`), normalised. */
  readonly allowedOrigins: readonly string[];
  /** kintsugi serves TLS itself: its own origin is then https://Host only (without, http or https, for a TLS proxy). */
  readonly tls?: boolean;
}

/**
 * Why a request must be refused before anything else is looked at, or null. Against DNS rebinding: on a loopback
 * listener the Host header must name a loopback host or an allowed name (a rebound name such as attacker.example is
 * neither). Against cross-site requests: an `Origin` header, which browsers send on cross-origin requests and
 * WebSocket handshakes, must be kintsugi's own origin (http or https with the request's Host, which has passed the
 * first rule; https only when kintsugi serves TLS) or an allowed origin. Requests without `Origin` (command-line clients, same-origin navigation) pass.
 */
export function browserRefusal(rules: BrowserRules, hostHeader: string | undefined, originHeader: string | undefined): string | null {
  const host = hostHeader === undefined ? null : hostOfHostHeader(hostHeader);
  if (rules.loopbackListener) {
    if (host === null) return "a request to a loopback listener must name it in its Host header";
    if (!isLoopbackHost(host) && !rules.allowedHosts.includes(host)) {
      return `Host ${JSON.stringify(hostHeader)} is not a loopback name or one of auth.allowed_hosts`;
    }
  }
  if (originHeader === undefined) return null;
  const origin = normalizeOrigin(originHeader);
  if (origin !== null) {
    if (rules.allowedOrigins.includes(origin)) return null;
    const own = (scheme: string) => hostHeader !== undefined && host !== null && origin === normalizeOrigin(`${scheme}://${hostHeader}`);
    if (own("https") || (!rules.tls && own("http"))) return null;
  }
  return `Origin ${JSON.stringify(originHeader.slice(0, 200))} is not kintsugi's own or one of auth.allowed_origins`;
}

/**
 * Why a request without credentials (no token, no mapped client certificate) must be refused although anonymous
 * clients may act, or null. Against DNS rebinding on a listener that is not loopback, where the Host rule above does
 * not apply: a page that rebinds its own name to kintsugi's address passes the Origin rule (its origin then matches
 * the Host) and would act through an operator's browser with the anonymous role. Rebinding always needs a name, so
 * such a request must name kintsugi by an IP address or by one of `auth.allowed_hosts`. On a loopback listener the
 * Host rule has already decided.
 */
export function anonymousHostRefusal(rules: BrowserRules, hostHeader: string | undefined): string | null {
  if (rules.loopbackListener) return null;
  const host = hostHeader === undefined ? null : hostOfHostHeader(hostHeader);
  if (host !== null && (isIP(host.replace(/^\[(.*)\]$/, "$1")) !== 0 || rules.allowedHosts.includes(host))) return null;
  const named = hostHeader === undefined ? "a request without a Host header" : `Host ${JSON.stringify(hostHeader.slice(0, 200))}`;
  return `${named} is not an IP address or one of auth.allowed_hosts, as a request without a token must name kintsugi (against DNS rebinding)`;
}

/**
 * The CORS headers for a request from a configured origin (`auth.allowed_origins`), so a dashboard served there can
 * read kintsugi's answers and send its token: the origin itself (never `*`), `Vary: Origin`, and for a preflight the
 * methods and headers kintsugi takes. None for kintsugi's own origin (same-origin needs none) or any other.
 * Credentials (cookies) are never allowed: kintsugi's credential is the Authorization header.
 */
export function corsHeaders(rules: BrowserRules, originHeader: string | undefined, preflight: boolean): Readonly<Record<string, string>> {
  const origin = originHeader === undefined ? null : normalizeOrigin(originHeader);
  if (origin === null || !rules.allowedOrigins.includes(origin)) return {};
  const headers: Record<string, string> = { "access-control-allow-origin": origin, vary: "Origin" };
  if (!preflight) return headers;
  return {
    ...headers,
    "access-control-allow-methods": "GET, POST",
    "access-control-allow-headers": "authorization, content-type",
    "access-control-max-age": "600",
  };
}
