import type { DocumentNode, GraphQLError } from "graphql";
import type { AccessPolicy } from "./access-policy.js";
import { anonymousHostRefusal, browserRefusal, corsHeaders } from "./browser-rules.js";
import { certificateActor } from "./client-certificates.js";
import { forbiddenFieldError } from "./operation-roles.js";
import { roleIncludes, type Actor, type Role } from "./roles.js";
import { anonymousActor, TokenVerifier } from "./tokens.js";

/** Who a request is, or why it is refused (401: no usable credentials; 403: a browser rule or a missing role). */
export type Admission =
  | { readonly ok: true; readonly actor: Actor }
  | { readonly ok: false; readonly status: 401 | 403; readonly type: "UNAUTHENTICATED" | "FORBIDDEN"; readonly message: string };

/** A refused request. */
export type Refusal = Extract<Admission, { ok: false }>;

const BEARER = /^Bearer +(\S+)$/i;

/** Header pairs whose browser-rule verdict is kept; past that the kept verdicts start over. */
const KEPT_HEADER_VERDICTS = 1_000;
/** Longest Host and Origin headers, together, whose verdict is kept: a longer pair is judged every time. */
const MAX_KEPT_HEADER_CHARS = 512;

/** Role and operation-name pairs kept as allowed per document. */
const KEPT_ALLOWED_PER_DOCUMENT = 16;

/**
 * Verdicts of a pure function of a short string, kept so that the clients that send the same Host and Origin on
 * every request (all of them) pay for the URL parsing once. Bounded by count and key length.
 */
class KeptVerdicts<T> {
  private readonly kept = new Map<string, T>();

  get(key: string, judge: () => T): T {
    const known = this.kept.get(key);
    if (known !== undefined || this.kept.has(key)) return known as T;
    const verdict = judge();
    if (key.length <= MAX_KEPT_HEADER_CHARS) {
      if (this.kept.size >= KEPT_HEADER_VERDICTS) this.kept.clear();
      this.kept.set(key, verdict);
    }
    return verdict;
  }
}

/**
 * Access control at the edge: the HTTP and WebSocket entry points ask it who a request is and whether it may do
 * what it asks; resolvers never do. Built once from the access policy.
 */
export class EdgeGuard {
  private readonly verifier: TokenVerifier;
  private readonly anonymous: Actor | null;
  private readonly browserVerdicts = new KeptVerdicts<string | null>();
  private readonly anonymousHostVerdicts = new KeptVerdicts<string | null>();
  /** Per document, the `role` and operation name pairs allowed to run it (a refusal names its actor, so it is not kept). */
  private readonly allowed = new WeakMap<DocumentNode, Set<string>>();

  constructor(private readonly policy: AccessPolicy) {
    this.verifier = new TokenVerifier(policy.tokens);
    this.anonymous = anonymousActor(policy.anonymousRole);
  }

  /** The Host and Origin rules (see browserRefusal), for every HTTP request and WebSocket handshake. */
  browserRefusal(host: string | undefined, origin: string | undefined): Refusal | null {
    const why = this.browserVerdicts.get(`${host ?? "\u0000"}\n${origin ?? "\u0000"}`, () => browserRefusal(this.policy.browser, host, origin));
    return why === null ? null : { ok: false, status: 403, type: "FORBIDDEN", message: why };
  }

  /** The CORS headers for a request that passed the browser rules (see corsHeaders): only for allowed origins. */
  corsHeaders(origin: string | undefined, preflight: boolean): Readonly<Record<string, string>> {
    return corsHeaders(this.policy.browser, origin, preflight);
  }

  /**
   * The actor of an `Authorization` header's value. A request without one is the client certificate's actor when
   * its verified CN is in `auth.client_certificates` (`certificateCn`), else anonymous: a token, when sent, decides.
   * An anonymous request must name kintsugi acceptably in its `host` header (see anonymousHostRefusal).
   */
  authenticate(authorization: string | undefined, certificateCn: string | null, host: string | undefined): Admission {
    if (authorization === undefined) {
      const byCertificate = certificateActor(this.policy.clientCertificates, certificateCn);
      if (byCertificate) return { ok: true, actor: byCertificate };
      if (this.anonymous) {
        const refused = this.anonymousHostVerdicts.get(host ?? "\u0000", () => anonymousHostRefusal(this.policy.browser, host));
        return refused === null ? { ok: true, actor: this.anonymous } : { ok: false, status: 403, type: "FORBIDDEN", message: refused };
      }
      if (this.policy.clientCertificates.length > 0) {
        return unauthenticated(
          "this server needs a token (send Authorization: Bearer <token>) or a client certificate whose CN auth.client_certificates maps to a role",
        );
      }
      return unauthenticated("this server needs a token: send Authorization: Bearer <token>");
    }
    const match = BEARER.exec(authorization.trim());
    if (!match) return unauthenticated("the Authorization header must be Bearer <token>");
    const actor = this.verifier.verify(match[1] as string);
    return actor ? { ok: true, actor } : unauthenticated("unknown token");
  }

  /**
   * The actor of a graphql-ws connection, from its `connection_init` payload: `{ "authorization": "Bearer <token>" }`
   * (also under `headers`, as some clients nest it, or as `{ "token": "<token>" }`); without any of them, the
   * handshake's own Authorization header, if any, then the handshake's client certificate (`certificateCn`).
   * `host` is the handshake's Host header.
   */
  authenticateConnection(
    params: Readonly<Record<string, unknown>> | undefined,
    handshakeAuthorization: string | undefined,
    certificateCn: string | null,
    host: string | undefined,
  ): Admission {
    const headers = params?.["headers"];
    const nested = headers !== null && typeof headers === "object" ? (headers as Record<string, unknown>) : undefined;
    const given = params?.["authorization"] ?? params?.["Authorization"] ?? nested?.["authorization"] ?? nested?.["Authorization"];
    if (given !== undefined)
      return typeof given === "string" ? this.authenticate(given, certificateCn, host) : unauthenticated("connection_init's authorization must be a string");
    const token = params?.["token"];
    if (token !== undefined)
      return typeof token === "string"
        ? this.authenticate(`Bearer ${token}`, certificateCn, host)
        : unauthenticated("connection_init's token must be a string");
    return this.authenticate(handshakeAuthorization, certificateCn, host);
  }

  /** Whether `actor` may use a GET endpoint that needs `role` (such as /metrics). */
  mayUse(actor: Actor, role: Role): Admission {
    if (roleIncludes(actor.role, role)) return { ok: true, actor };
    return { ok: false, status: 403, type: "FORBIDDEN", message: `this endpoint needs the ${role} role; ${actor.name} has the ${actor.role} role` };
  }

  /** The FORBIDDEN error when `actor` may not run the operation (every root field is checked), else null. */
  forbidden(actor: Actor, document: DocumentNode, operationName?: string | null): GraphQLError | null {
    // The verdict depends on the role alone, and Apollo hands every request of one text the same document.
    const key = `${actor.role}\n${operationName ?? ""}`;
    if (this.allowed.get(document)?.has(key)) return null;
    const error = forbiddenFieldError(actor, document, operationName);
    const allowed = this.allowed.get(document) ?? new Set<string>();
    // Roles times the operation names a client may send for one document: a few are kept, the rest judged each time.
    if (error === null && allowed.size < KEPT_ALLOWED_PER_DOCUMENT) {
      allowed.add(key);
      this.allowed.set(document, allowed);
    }
    return error;
  }
}

function unauthenticated(message: string): Refusal {
  return { ok: false, status: 401, type: "UNAUTHENTICATED", message };
}
