import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApolloServerPlugin } from "../apollo-server.js";
import type { Context as WsContext } from "graphql-ws";
import type { Extra } from "graphql-ws/use/ws";
import type { VerifyClientCallbackAsync } from "ws";
import { verifiedClientCn } from "../../auth/client-certificates.js";
import type { Admission, EdgeGuard, Refusal } from "../../auth/edge-guard.js";
import type { Actor, Role } from "../../auth/roles.js";
import type { GraphQLContext } from "../context.js";

const JSON_TYPE = "application/json; charset=utf-8";

/** The body of a refusal: GraphQL-shaped JSON naming the reason, never echoing credentials. */
function refusalBody(refusal: Refusal): string {
  return JSON.stringify({ errors: [{ message: refusal.message, extensions: { type: refusal.type, code: refusal.type } }] });
}

/** Answers a refused HTTP request: a GraphQL-shaped error body naming the reason, never echoing credentials. */
export function sendRefusal(res: ServerResponse, refusal: Refusal): void {
  const headers: Record<string, string> = { "content-type": JSON_TYPE };
  if (refusal.status === 401) headers["www-authenticate"] = 'Bearer realm="kintsugi"';
  res.writeHead(refusal.status, headers);
  res.end(refusalBody(refusal));
}

/** Who an HTTP request is by its Authorization header or client certificate, and, given a `role`, whether it has that role. */
export function admitHttp(guard: EdgeGuard, req: IncomingMessage, role?: Role): Admission {
  const admitted = guard.authenticate(req.headers.authorization, verifiedClientCn(req.socket), req.headers.host);
  return admitted.ok && role ? guard.mayUse(admitted.actor, role) : admitted;
}

/**
 * Checks every root field of each HTTP operation against the caller's role once the operation is parsed and
 * validated, before anything runs: a field beyond the role fails the whole operation with FORBIDDEN (HTTP 403).
 */
export function roleCheckPlugin(guard: EdgeGuard): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, document, operationName }) {
          const error = guard.forbidden(contextValue.actor, document, operationName);
          if (error) {
            error.extensions["http"] = { status: 403 };
            throw error;
          }
        },
      };
    },
  };
}

/**
 * The graphql-ws side: the handshake must pass the Host/Origin rules (else HTTP 403, no WebSocket); the
 * `connection_init` payload must carry a known token, or none when the handshake's client certificate is mapped to a
 * role or anonymous clients are allowed (else close 4401).
 */
export function webSocketEdge(guard: EdgeGuard) {
  const actors = new WeakMap<object, Actor>();
  const verifyClient: VerifyClientCallbackAsync<IncomingMessage> = (info, done) => {
    const refused = guard.browserRefusal(info.req.headers.host, info.origin || undefined);
    // As the HTTP side answers, in JSON: ws would send the message as text/html, with the refused Host in it.
    if (refused) done(false, 403, refusalBody(refused), { "Content-Type": JSON_TYPE });
    else done(true);
  };
  return {
    verifyClient,
    onConnect(ctx: WsContext<Record<string, unknown> | undefined, Extra>): boolean {
      const { headers, socket } = ctx.extra.request;
      const admission = guard.authenticateConnection(ctx.connectionParams, headers.authorization, verifiedClientCn(socket), headers.host);
      if (!admission.ok) {
        // On `false` graphql-ws would close with 4403 whatever the reason; the first close code sent wins.
        ctx.extra.socket.close(admission.status === 401 ? 4401 : 4403, admission.message.slice(0, 120));
        return false;
      }
      actors.set(ctx, admission.actor);
      // Nothing reads the upgrade request after this, and graphql-ws would keep it (its headers, socket state) for
      // as long as the connection lasts: about 2 KB a subscriber.
      (ctx.extra as { request: IncomingMessage | null }).request = null;
      return true;
    },
    /** The actor of an acknowledged connection. */
    actorOf(ctx: object): Actor {
      const actor = actors.get(ctx);
      if (!actor) throw new Error("graphql-ws context without an authenticated actor");
      return actor;
    },
  };
}
