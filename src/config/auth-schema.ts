import { z } from "../support/zod.js";
import { accessPolicyFor, type AuthConfig } from "../auth/access-policy.js";
import { hostOfHostHeader, normalizeOrigin } from "../auth/browser-rules.js";
import { ROLES } from "../auth/roles.js";
import { TOKEN_NAME, type TokenEntry } from "../auth/tokens.js";

// Never echoes the value: a token pasted here by mistake must not end up in a log or a terminal.
const SHA256_MESSAGE = "must be the token's SHA-256 as 64 hexadecimal digits (as `kintsugi token create` prints it)";

const sha256 = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : SHA256_MESSAGE) })
  .regex(/^[0-9a-fA-F]{64}$/, { error: SHA256_MESSAGE })
  .transform((hex) => hex.toLowerCase());

const tokenEntry = z.strictObject({
  name: z.string().regex(TOKEN_NAME, { error: "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit" }),
  role: z.enum(ROLES),
  sha256,
});

/** A list of tokens, as under `auth.tokens` or in a tokens file. */
export const tokenList = z.array(tokenEntry);

const origin = z.string().refine((text) => normalizeOrigin(text) !== null && normalizeOrigin(text) === text.replace(/\/$/, "").toLowerCase(), {
  error: 'must be an origin: scheme, host and port if not the default, without a path, e.g. "https://ops.example.com"',
});

const hostName = z.string().refine((text) => !text.includes(":") && hostOfHostHeader(text) === text.toLowerCase(), {
  error: 'must be a host name without a port, e.g. "kintsugi.internal"',
});

// A certificate subject's CN as issued: printable, at most 64 characters (X.509's upper bound).
const clientCertificate = z.strictObject({
  cn: z.string().regex(/^[^\x00-\x1f\x7f]{1,64}$/, { error: "must be the certificate subject's common name: 1-64 printable characters" }),
  role: z.enum(ROLES),
});

/** The `auth` section as written (tokens_file is read by the loader). */
export const authSection = z.strictObject({
  anonymous: z.enum(["none", ...ROLES]).default("none"),
  tokens: tokenList.default([]),
  tokens_file: z.string().min(1).optional(),
  allowed_origins: z.array(origin).default([]),
  allowed_hosts: z.array(hostName).default([]),
  client_certificates: z.array(clientCertificate).default([]),
});

export type AuthSection = z.output<typeof authSection>;

/** Adds an issue at `auth` when the listen address needs an auth section and there is none (see accessPolicyFor). */
export function requireAuthOffLoopback(listenHost: string, auth: AuthSection | undefined, ctx: z.RefinementCtx): void {
  if (auth !== undefined || typeof listenHost !== "string") return;
  const decision = accessPolicyFor(listenHost, null);
  if (!decision.ok) ctx.addIssue({ code: "custom", path: ["auth"], message: decision.message });
}

/** Client certificates are only asked for with `tls.client_ca_file`; each CN is mapped once. */
export function checkClientCertificates(auth: AuthSection | undefined, clientCaFile: string | undefined, ctx: z.RefinementCtx): void {
  const entries = auth?.client_certificates ?? [];
  if (entries.length > 0 && clientCaFile === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["auth", "client_certificates"],
      message: "needs tls.client_ca_file: without it clients are not asked for certificates",
    });
  }
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.cn)) ctx.addIssue({ code: "custom", path: ["auth", "client_certificates", i, "cn"], message: "is mapped twice" });
    seen.add(entry.cn);
  });
}

/** Token names must be unique across `auth.tokens` and the tokens file: they name the actor in records. */
export function duplicateTokenNames(tokens: readonly TokenEntry[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const token of tokens) {
    if (seen.has(token.name)) duplicates.add(token.name);
    seen.add(token.name);
  }
  return [...duplicates];
}

/** The AuthConfig of a validated section and the tokens read from its tokens file. */
export function toAuthConfig(section: AuthSection, fileTokens: readonly TokenEntry[]): AuthConfig {
  return {
    anonymous: section.anonymous,
    tokens: [...section.tokens, ...fileTokens],
    allowedOrigins: section.allowed_origins.map((o) => normalizeOrigin(o) ?? o),
    allowedHosts: section.allowed_hosts.map((h) => h.toLowerCase()),
    clientCertificates: section.client_certificates,
  };
}
