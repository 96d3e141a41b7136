// The sabakan of bench/abuse: the test sabakan behind a cache of its answers. The test sabakan runs graphql-js over
// its 10,000 machines in the bench's own process and takes seconds for a fleet search with every field; sabakan
// answers in a fraction of that. The fleet does not change during the bench, so an answer once made is sent again
// as it was, and the figures measure kintsugi rather than the test sabakan. Every request is counted.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeSabakan } from "../test/support/fake-sabakan.js";

interface Kept {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

export class CachedSabakan {
  /** Requests received, answered from the cache or not. */
  requests = 0;
  private readonly kept = new Map<string, Promise<Kept>>();
  private baseUrl = "";

  private constructor(
    private readonly server: Server,
    private readonly upstream: FakeSabakan,
  ) {}

  static async start(upstream: FakeSabakan): Promise<CachedSabakan> {
    const cache: CachedSabakan = new CachedSabakan(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          cache.requests++;
          void cache
            .answer(req.method ?? "GET", req.url ?? "/", req.headers["content-type"] ?? "", Buffer.concat(chunks))
            .then((kept) => res.writeHead(kept.status, { "Content-Type": kept.contentType }).end(kept.body))
            .catch(() => res.destroy());
        });
      }),
      upstream,
    );
    await new Promise<void>((resolve) => cache.server.listen(0, "127.0.0.1", resolve));
    cache.baseUrl = `http://127.0.0.1:${(cache.server.address() as AddressInfo).port}`;
    return cache;
  }

  get url(): string {
    return this.baseUrl;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(method: string, path: string, contentType: string, body: Buffer): Promise<Kept> {
    const key = `${method} ${path} ${contentType} ${body.toString("utf8")}`;
    let kept = this.kept.get(key);
    if (!kept) {
      kept = fetch(`${this.upstream.url}${path}`, { method, headers: { "content-type": contentType }, ...(method === "GET" ? {} : { body }) }).then(
        async (res) => ({
          status: res.status,
          contentType: res.headers.get("content-type") ?? "application/json",
          body: Buffer.from(await res.arrayBuffer()),
        }),
      );
      this.kept.set(key, kept);
      kept.catch(() => this.kept.delete(key));
    }
    return kept;
  }
}
