import { isLoopbackHost, normalizeOrigin, type BrowserRules } from "./browser-rules.js";
import type { ClientCertificateEntry } from "./client-certificates.js";
import type { Role } from "./roles.js";
import type { TokenEntry } from "./tokens.js";

/** The `auth` section of the config, validated, with the tokens of `tokens_file` merged in. */
export interface AuthConfig {
  /** What a request without a token may do; "none" = it is refused (HTTP 401, graphql-ws close 4401). */
  readonly anonymous: Role | "none";
  readonly tokens: readonly TokenEntry[];
  /** Browser origins besides kintsugi's own, normalised (`scheme://host[:port]`). */
  readonly allowedOrigins: readonly string[];
  /** Host names a loopback listener answers to besides loopback ones, and the names (besides IP addresses) under which another listener serves clients without a token; lower-case. */
  readonly allowedHosts: readonly string[];
  /** Roles of client certificates by subject CN (`auth.client_certificates`; needs `tls.client_ca_file`). */
  readonly clientCertificates?: readonly ClientCertificateEntry[];
}

/** How the edge treats clients, decided once at start. */
export interface AccessPolicy {
  /** The role of a request without a token, or null when such a request is refused. */
  readonly anonymousRole: Role | null;
  readonly tokens: readonly TokenEntry[];
  readonly clientCertificates: readonly ClientCertificateEntry[];
  readonly browser: BrowserRules;
  /** True when there is no `auth` section and the loopback default applies (worth a line in the log). */
  readonly loopbackDefault: boolean;
}

/** kintsugi will not serve with this config: the message names what to change (printed without a stack by the CLI). */
export class StartRefusedError extends Error {
  override readonly name = "StartRefusedError";
}

/** The access policy (see accessPolicyFor), or StartRefusedError saying why there is none. */
export function accessPolicyOrRefuse(listenHost: string, auth: AuthConfig | null, tls = false): AccessPolicy {
  const decision = accessPolicyFor(listenHost, auth, tls);
  if (!decision.ok) throw new StartRefusedError(decision.message);
  return decision.policy;
}

/** The start-up log line saying what clients without a token may do (a warning for the loopback default). */
export function accessLogLine(policy: AccessPolicy): { level: "info" | "warn"; fields: Record<string, unknown>; message: string } {
  if (policy.loopbackDefault) {
    return {
      level: "warn",
      fields: { anonymous: policy.anonymousRole },
      message: "no auth section: clients without a token act as operators (allowed because kintsugi listens on loopback only)",
    };
  }
  return { level: "info", fields: { anonymous: policy.anonymousRole ?? "none", tokens: policy.tokens.length }, message: "access control" };
}

/** What anonymous clients may do on a loopback listener when the config has no `auth` section. */
export const LOOPBACK_DEFAULT_ROLE: Role = "operator";

/**
 * The access policy for a listener on `listenHost`. Secure by default: without an `auth` section, anonymous clients
 * are operators only on a loopback listener (a laptop, the demo); on any other address kintsugi refuses to start
 * until the config says what anonymous clients may do. With `tls`, kintsugi's own browser origin is https only.
 */
export function accessPolicyFor(listenHost: string, auth: AuthConfig | null, tls = false): { ok: true; policy: AccessPolicy } | { ok: false; message: string } {
  const loopbackListener = isLoopbackHost(listenHost);
  if (auth === null) {
    if (!loopbackListener) {
      return {
        ok: false,
        message: `listen address ${listenHost} is not a loopback address: add an auth section that says what clients without a token may do (auth.anonymous: none, viewer, operator or admin) and, usually, auth.tokens`,
      };
    }
    return {
      ok: true,
      policy: {
        anonymousRole: LOOPBACK_DEFAULT_ROLE,
        tokens: [],
        clientCertificates: [],
        browser: { loopbackListener, allowedHosts: [], allowedOrigins: [], tls },
        loopbackDefault: true,
      },
    };
  }
  const allowedOrigins = auth.allowedOrigins.map((origin) => normalizeOrigin(origin) ?? origin);
  return {
    ok: true,
    policy: {
      anonymousRole: auth.anonymous === "none" ? null : auth.anonymous,
      tokens: auth.tokens,
      clientCertificates: auth.clientCertificates ?? [],
      browser: { loopbackListener, allowedHosts: auth.allowedHosts.map((h) => h.toLowerCase()), allowedOrigins, tls },
      loopbackDefault: false,
    },
  };
}
