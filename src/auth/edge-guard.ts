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

/**
 * Access control at the edge: the HTTP and WebSocket entry points ask it who a request is and whether it may do
 * what it asks; resolvers never do. Built once from the access policy.
 */
export class EdgeGuard {
  private readonly verifier: TokenVerifier;
  private readonly anonymous: Actor | null;

  constructor(private readonly policy: AccessPolicy) {
    this.verifier = new TokenVerifier(policy.tokens);
    this.anonymous = anonymousActor(policy.anonymousRole);
  }

  /** The Host and Origin rules (see browserRefusal), for every HTTP request and WebSocket handshake. */
  browserRefusal(host: string | undefined, origin: string | undefined): Refusal | null {
    const why = browserRefusal(this.policy.browser, host, origin);
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
        const refused = anonymousHostRefusal(this.policy.browser, host);
        return refused === null ? { ok: true, actor: this.anonymous } : { ok: false, status: 403, type: "FORBIDDEN", message: refused };
      }
      if (this.policy.clientCertificates.length > 0) {
        return unauthenticated("this server needs a token (send Authorization: Bearer <token>) or a client certificate whose CN auth.client_certificates maps to a role");
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
  authenticateConnection(params: Readonly<Record<string, unknown>> | undefined, handshakeAuthorization: string | undefined, certificateCn: string | null, host: string | undefined): Admission {
    const headers = params?.["headers"];
    const nested = headers !== null && typeof headers === "object" ? (headers as Record<string, unknown>) : undefined;
    const given = params?.["authorization"] ?? params?.["Authorization"] ?? nested?.["authorization"] ?? nested?.["Authorization"];
    if (given !== undefined) return typeof given === "string" ? this.authenticate(given, certificateCn, host) : unauthenticated("connection_init's authorization must be a string");
    const token = params?.["token"];
    if (token !== undefined) return typeof token === "string" ? this.authenticate(`Bearer ${token}`, certificateCn, host) : unauthenticated("connection_init's token must be a string");
    return this.authenticate(handshakeAuthorization, certificateCn, host);
  }

  /** Whether `actor` may use a GET endpoint that needs `role` (such as /metrics). */
  mayUse(actor: Actor, role: Role): Admission {
    if (roleIncludes(actor.role, role)) return { ok: true, actor };
    return { ok: false, status: 403, type: "FORBIDDEN", message: `this endpoint needs the ${role} role; ${actor.name} has the ${actor.role} role` };
  }

  /** The FORBIDDEN error when `actor` may not run the operation (every root field is checked), else null. */
  forbidden(actor: Actor, document: DocumentNode, operationName?: string | null): GraphQLError | null {
    return forbiddenFieldError(actor, document, operationName);
  }
}

function unauthenticated(message: string): Refusal {
  return { ok: false, status: 401, type: "UNAUTHENTICATED", message };
}
