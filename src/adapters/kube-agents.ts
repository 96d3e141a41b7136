import { createHash } from "node:crypto";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";

/** The most agents kept, one per distinct TLS identity (CA, client certificate and key, server name, verification). */
export const MAX_KUBE_AGENTS = 4;
/** The most connections one agent opens to the API server at a time; further requests wait for one to be free. */
export const MAX_KUBE_SOCKETS = 32;
/** The most idle connections one agent keeps open for the next request. */
export const MAX_FREE_KUBE_SOCKETS = 8;
/**
 * An idle connection is closed after this long, as node's own global agent does: far below the 90 s after which
 * the API server closes an idle connection, so a request never meets a connection the server is closing.
 */
export const KUBE_IDLE_MS = 5000;

// Options node adds to every agent's `options`, which say nothing about whom it talks to or trusts.
const NOT_IDENTITY = new Set(["path", "noDelay"]);

/** One option's value as bytes for the key, tagged with its type so that `"1"`, `1` and `true` differ. */
function optionBytes(value: unknown): string[] {
  if (value === undefined || value === null) return ["-"];
  if (Buffer.isBuffer(value)) return ["b", createHash("sha256").update(value).digest("hex")];
  if (typeof value === "string") return ["s", createHash("sha256").update(value).digest("hex")];
  if (typeof value === "boolean" || typeof value === "number") return [typeof value, String(value)];
  if (Array.isArray(value)) return ["a", String(value.length), ...value.flatMap(optionBytes)];
  throw new Error(`an agent option of type ${typeof value} cannot be compared`);
}

/** What tells one TLS identity from another: every option the library gave its agent, CA and key material by hash. */
function identityOf(protocol: string, options: Record<string, unknown>): string {
  const names = Object.keys(options)
    .filter((name) => !NOT_IDENTITY.has(name))
    .sort();
  return [protocol, ...names.flatMap((name) => [name, ...optionBytes(options[name])])].join("\0");
}

/**
 * Keep-alive agents for the Kubernetes API, one per TLS identity. The client library builds a new agent for every
 * request (KubeConfig.applySecurityAuthentication, @kubernetes/client-node 1.4.0), so each call paid a TCP and TLS
 * handshake. {@link agentFor} swaps that agent for a kept one built with the same options: calls with the same
 * CA, client certificate and key, server name and verification share connections, and a changed kubeconfig or a
 * rotated certificate file (the library reads it again for every request) gets an agent of its own. At most
 * MAX_KUBE_AGENTS are kept; the least recently used one beyond that closes its idle connections and is dropped.
 * A proxied cluster's agent (the library's proxy agents) is used as the library made it, one per request.
 */
export class KubeAgentPool {
  private readonly agents = new Map<string, HttpAgent>();

  /** The kept agent for requests the library would send through `agent`; `agent` itself when it is not pooled. */
  agentFor(agent: HttpAgent | undefined): HttpAgent | undefined {
    const kind = agent?.constructor === HttpsAgent ? "https" : agent?.constructor === HttpAgent ? "http" : null;
    if (agent === undefined || kind === null) return agent;
    const options = (agent as HttpAgent & { options: Record<string, unknown> }).options;
    const key = identityOf(kind, options);
    const kept = this.agents.get(key);
    if (kept) {
      // Most recently used last, so the first is the one to drop.
      this.agents.delete(key);
      this.agents.set(key, kept);
      return kept;
    }
    const settings = Object.fromEntries(Object.entries(options).filter(([name]) => !NOT_IDENTITY.has(name)));
    const pooled = {
      ...settings,
      keepAlive: true,
      maxSockets: MAX_KUBE_SOCKETS,
      maxFreeSockets: MAX_FREE_KUBE_SOCKETS,
      timeout: KUBE_IDLE_MS,
      scheduling: "lifo" as const,
    };
    const made = kind === "https" ? new HttpsAgent(pooled) : new HttpAgent(pooled);
    this.agents.set(key, made);
    for (const [oldKey, old] of this.agents) {
      if (this.agents.size <= MAX_KUBE_AGENTS) break;
      this.agents.delete(oldKey);
      closeIdle(old);
    }
    return made;
  }
}

/** Closes an agent's idle connections; one still answering is closed KUBE_IDLE_MS after its answer, as any idle one. */
function closeIdle(agent: HttpAgent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}
