import assert from "node:assert/strict";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent, type AgentOptions } from "node:https";
import { describe, it } from "node:test";
import { KUBE_IDLE_MS, KubeAgentPool, MAX_KUBE_AGENTS, MAX_KUBE_SOCKETS } from "../../src/adapters/kube-agents.js";

const BASE: AgentOptions = { ca: Buffer.from("ca-1"), cert: Buffer.from("cert-1"), key: Buffer.from("key-1") };

/** A proxy agent as the client library's proxy classes are: a subclass of node's agent. */
class ProxyAgent extends HttpsAgent {}

describe("KubeAgentPool", () => {
  it("gives requests with the same TLS options one keep-alive agent, bounded in sockets and idle time", () => {
    const pool = new KubeAgentPool();
    const first = pool.agentFor(new HttpsAgent({ ...BASE }));
    const second = pool.agentFor(new HttpsAgent({ ca: Buffer.from("ca-1"), cert: Buffer.from("cert-1"), key: Buffer.from("key-1") }));
    assert.ok(first instanceof HttpsAgent);
    assert.equal(second, first, "equal options by content, not by identity");
    const options = (first as HttpsAgent & { options: AgentOptions }).options;
    assert.equal((first as HttpsAgent & { keepAlive: boolean }).keepAlive, true);
    assert.equal(first.maxSockets, MAX_KUBE_SOCKETS);
    assert.equal(options.timeout, KUBE_IDLE_MS);
    assert.deepEqual([options.ca, options.cert, options.key], [BASE.ca, BASE.cert, BASE.key], "the TLS options the library chose");
  });

  const different: Array<[string, AgentOptions]> = [
    ["another CA", { ...BASE, ca: Buffer.from("ca-2") }],
    ["a CA given as text", { ...BASE, ca: "ca-1" }],
    ["another client certificate", { ...BASE, cert: Buffer.from("cert-2") }],
    ["another client key", { ...BASE, key: Buffer.from("key-2") }],
    ["a server name", { ...BASE, servername: "api.example" }],
    ["verification turned off", { ...BASE, rejectUnauthorized: false }],
    ["verification asked for explicitly", { ...BASE, rejectUnauthorized: true }],
    ["no client certificate", { ca: BASE.ca }],
  ];
  for (const [name, options] of different) {
    it(`gives ${name} an agent of its own`, () => {
      const pool = new KubeAgentPool();
      const base = pool.agentFor(new HttpsAgent({ ...BASE }));
      const other = pool.agentFor(new HttpsAgent(options));
      assert.notEqual(other, base);
      assert.equal(pool.agentFor(new HttpsAgent({ ...BASE })), base, "the first is still kept");
    });
  }

  it("keeps plain HTTP apart from HTTPS with the same options", () => {
    const pool = new KubeAgentPool();
    const https = pool.agentFor(new HttpsAgent({}));
    const http = pool.agentFor(new HttpAgent({}));
    assert.ok(!(http instanceof HttpsAgent) && http instanceof HttpAgent);
    assert.notEqual(http, https);
    assert.equal(pool.agentFor(new HttpAgent({})), http);
  });

  it("passes a proxy agent and no agent through as they are", () => {
    const pool = new KubeAgentPool();
    const proxy = new ProxyAgent({ ...BASE });
    assert.equal(pool.agentFor(proxy), proxy);
    assert.equal(pool.agentFor(undefined), undefined);
  });

  it(`keeps at most ${MAX_KUBE_AGENTS} agents, dropping the least recently used`, () => {
    const pool = new KubeAgentPool();
    const identity = (i: number) => new HttpsAgent({ ...BASE, ca: Buffer.from(`ca-${i}`) });
    const agents = Array.from({ length: MAX_KUBE_AGENTS }, (_, i) => pool.agentFor(identity(i)));
    assert.equal(pool.agentFor(identity(0)), agents[0], "used again: now the most recent");
    pool.agentFor(identity(MAX_KUBE_AGENTS));
    assert.equal(pool.agentFor(identity(0)), agents[0], "kept");
    assert.notEqual(pool.agentFor(identity(1)), agents[1], "dropped: the least recently used when one more came");
  });
});
