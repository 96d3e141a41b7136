import { TLSSocket } from "node:tls";
import type { Socket } from "node:net";
import type { Actor, Role } from "./roles.js";

/** One item of `auth.client_certificates`: the role of a client certificate, by its subject's common name. */
export interface ClientCertificateEntry {
  readonly cn: string;
  readonly role: Role;
}

/**
 * The subject CN of the client certificate the TLS handshake verified against `tls.client_ca_file`, or null: a
 * plain-HTTP socket, no certificate, one the handshake did not verify, or a subject with no CN or several.
 */
export function verifiedClientCn(socket: Socket): string | null {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return null;
  const cn: unknown = socket.getPeerCertificate().subject?.CN;
  return typeof cn === "string" && cn !== "" ? cn : null;
}

/** The actor of a verified client certificate's CN: the CN as its name, the mapped role; null when not mapped. */
export function certificateActor(entries: readonly ClientCertificateEntry[], cn: string | null): Actor | null {
  if (cn === null) return null;
  const entry = entries.find((e) => e.cn === cn);
  return entry ? { name: entry.cn, role: entry.role, via: "certificate" } : null;
}
