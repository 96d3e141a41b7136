import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTestKubeconfig } from "./fake-kube-api.js";
import { testServerCertificate } from "./test-ca.js";

/**
 * How the hostile server answers the node list and the node watch:
 * - `endless-watch-line`: the watch is one line that never ends (bytes without a newline, as fast as they are read);
 * - `huge-list`: the NodeList never ends (nodes after nodes, no Content-Length), or ends after `listBytes` if given;
 * - `silent-watch`: the watch answers 200 and then sends nothing, ever;
 * - `non-json`: both answer 200 with an HTML page (the watch's stays open after its line);
 * - `not-a-list`: the list is JSON without items (a Status); the watch is silent.
 * Every other answer is a well-formed empty list.
 */
export type HostileBehaviour = "endless-watch-line" | "huge-list" | "silent-watch" | "non-json" | "not-a-list";

/** One answer the server sent: what it was, how many bytes went out, whether it is over, and if the client ended it. */
export interface HostileAnswer {
  readonly kind: "watch" | "list" | "other";
  readonly query: Readonly<Record<string, string>>;
  bytesSent: number;
  closed: boolean;
  closedByClient: boolean;
}

const CHUNK = Buffer.alloc(64 * 1024, "a");
const NODE = (i: number) =>
  JSON.stringify({
    metadata: { name: `node-${i}`, labels: { "kubernetes.io/hostname": `node-${i}` } },
    status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] },
  });
const HTML = "<html><body>502 Bad Gateway</body></html>\n";

/**
 * A Kubernetes API server that answers the node list and watch with one hostile {@link HostileBehaviour}, on HTTPS
 * with a certificate of the test CA (as the fake API's), for a real `kintsugi serve` to meet. It records every
 * answer, so a test sees that kintsugi hung up after its bound rather than reading on.
 */
export class HostileKubeApi {
  readonly answers: HostileAnswer[] = [];
  readonly kubeconfigPath: string;
  private readonly dir = mkdtempSync(join(tmpdir(), "kintsugi-hostile-kube-"));

  private constructor(
    private readonly server: Server,
    readonly behaviour: HostileBehaviour,
    private readonly listBytes = Infinity,
  ) {
    this.kubeconfigPath = join(this.dir, "kubeconfig");
    server.on("request", (req: IncomingMessage, res: ServerResponse) => this.serve(req, res));
  }

  /** Starts one on 127.0.0.1; `options.listBytes` ends the `huge-list` NodeList once about that many bytes went out. */
  static async start(behaviour: HostileBehaviour, options: { listBytes?: number } = {}): Promise<HostileKubeApi> {
    const certificate = await testServerCertificate();
    const api = new HostileKubeApi(createServer({ cert: certificate.certPem, key: certificate.keyPem }), behaviour, options.listBytes);
    await new Promise<void>((resolve, reject) => {
      api.server.once("error", reject);
      api.server.listen(0, "127.0.0.1", () => resolve());
    });
    writeTestKubeconfig(api.kubeconfigPath, `https://127.0.0.1:${(api.server.address() as AddressInfo).port}`, certificate.ca.certPem);
    return api;
  }

  /** The answers of one kind so far. */
  of(kind: HostileAnswer["kind"]): HostileAnswer[] {
    return this.answers.filter((a) => a.kind === kind);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://hostile.invalid");
    const watch = url.searchParams.get("watch") === "true";
    const nodes = req.method === "GET" && url.pathname === "/api/v1/nodes";
    const answer: HostileAnswer = {
      kind: nodes ? (watch ? "watch" : "list") : "other",
      query: Object.fromEntries(url.searchParams),
      bytesSent: 0,
      closed: false,
      closedByClient: false,
    };
    this.answers.push(answer);
    res.on("close", () => {
      answer.closed = true;
      answer.closedByClient = !res.writableFinished;
    });
    const send = (data: string | Buffer) => {
      answer.bytesSent += Buffer.byteLength(data);
      return res.write(data);
    };
    // Writes `next()` for as long as the client reads, waiting for it to drain: as fast as it takes them. Past
    // `until` bytes it ends the answer with `end`.
    const flood = (next: () => string | Buffer, until = Infinity, end = "") => {
      const pump = () => {
        while (!res.destroyed && answer.bytesSent < until && send(next()));
        if (res.destroyed) return;
        if (answer.bytesSent >= until) res.end(end);
        else res.once("drain", pump);
      };
      pump();
    };
    // The HTML page claims to be JSON too, as a misconfigured proxy's may: it must fail on its content, not its type.
    res.writeHead(200, { "Content-Type": "application/json" });
    if (!nodes) return void res.end(JSON.stringify({ kind: "List", apiVersion: "v1", metadata: {}, items: [] }));
    switch (this.behaviour) {
      case "endless-watch-line":
        return watch ? flood(() => CHUNK) : void res.end(JSON.stringify({ kind: "NodeList", apiVersion: "v1", metadata: {}, items: [] }));
      case "huge-list": {
        if (watch) return void res.flushHeaders();
        let i = 0;
        send('{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[');
        return flood(() => `${i === 0 ? "" : ","}${NODE(i++)}`, this.listBytes, "]}");
      }
      case "silent-watch":
        return watch ? void res.flushHeaders() : void res.end(JSON.stringify({ kind: "NodeList", apiVersion: "v1", metadata: {}, items: [] }));
      case "non-json":
        if (watch) return void send(HTML);
        return void res.end(HTML);
      case "not-a-list":
        return watch ? void res.flushHeaders() : void res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" }));
    }
  }
}
