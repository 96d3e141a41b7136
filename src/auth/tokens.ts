import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { ANONYMOUS, type Actor, type Role } from "./roles.js";

/** One configured token: kintsugi keeps only the SHA-256 of the secret, as lower-case hex. */
export interface TokenEntry {
  readonly name: string;
  readonly role: Role;
  readonly sha256: string;
}

/** What a token's name may be: it is shown in errors and logs, and written into YAML by `token create`. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** The prefix of every token `token create` makes, so that secret scanners and people recognise one. */
export const TOKEN_PREFIX = "kintsugi_";

/** The SHA-256 of a token, as lower-case hex. */
export function sha256Hex(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new random token: 256 bits from the system's CSPRNG, base64url, after TOKEN_PREFIX. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** The config line (an item of `auth.tokens` or of a tokens file) for a token. */
export function tokenConfigLine(entry: TokenEntry): string {
  return `- { name: ${entry.name}, role: ${entry.role}, sha256: "${entry.sha256}" }`;
}

/**
 * Finds the configured token a client presented. The presented token is hashed and its digest compared with every
 * configured digest in constant time, all of them every time, so the answer's timing tells nothing about which
 * digest came close.
 */
export class TokenVerifier {
  private readonly digests: ReadonlyArray<{ readonly actor: Actor; readonly digest: Buffer }>;

  constructor(entries: readonly TokenEntry[]) {
    this.digests = entries.map((entry) => ({ actor: { name: entry.name, role: entry.role }, digest: Buffer.from(entry.sha256, "hex") }));
  }

  /** The token's actor, or null when no configured token has its digest. */
  verify(token: string): Actor | null {
    const digest = createHash("sha256").update(token, "utf8").digest();
    let found: Actor | null = null;
    for (const candidate of this.digests) {
      if (timingSafeEqual(candidate.digest, digest) && found === null) found = candidate.actor;
    }
    return found;
  }
}

/** The actor of a request without a token, or null when anonymous clients may do nothing. */
export function anonymousActor(role: Role | null): Actor | null {
  return role === null ? null : { name: ANONYMOUS, role };
}
