import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer, type RawData } from "ws";

/**
 * A proxy in front of kintsugi (HTTP and graphql-ws on 127.0.0.1) that can hold what passes, to stretch the windows
 * a client must close: its operations on their way to the server (the time before its subscriptions listen), and the
 * server's answers to chosen HTTP requests on their way back (a snapshot that arrives after newer events).
 */
export interface HoldingProxy {
  readonly url: string;
  /** The graphql-ws `subscribe` messages held so far, as the client sent them. */
  heldOperations(): readonly string[];
  /** Sends the held operations on, in order, and lets later ones through. */
  releaseOperations(): void;
  /** The bodies of the HTTP requests whose answers are held. */
  heldAnswers(): readonly string[];
  /** From now on, holds the answers to HTTP requests whose body matches, until releaseAnswers. */
  holdAnswers(matches: (body: string) => boolean): void;
  /** Sends the held answers on, in order, and lets later ones through. */
  releaseAnswers(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (kintsugi's base URL); it holds operations from the start. */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let holdingOperations = true;
  const operations: Array<{ text: string; send: () => void }> = [];
  let answerMatch: ((body: string) => boolean) | null = null;
  const answers: Array<{ body: string; send: () => void }> = [];
  const sockets = new Set<WebSocket>();

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
    const answer = await fetch(new URL(req.url ?? "/", target), { method: req.method, headers, ...(body === "" ? {} : { body }) });
    const text = Buffer.from(await answer.arrayBuffer());
    const send = () => {
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(text);
    };
    if (answerMatch?.(body)) answers.push({ body, send });
    else send();
  };
  const server = createServer((req, res) => {
    forward(req, res).catch((err: unknown) => {
      res.writeHead(502);
      res.end(String(err));
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(new URL(req.url ?? "/graphql", target.replace(/^http/, "ws")), client.protocol);
      sockets.add(client).add(upstream);
      const early: RawData[] = [];
      upstream.on("open", () => early.splice(0).forEach((m) => upstream.send(m.toString())));
      upstream.on("message", (data) => client.readyState === WebSocket.OPEN && client.send(data.toString()));
      upstream.on("close", () => client.close());
      client.on("close", () => upstream.close());
      client.on("message", (data) => {
        const text = data.toString();
        const send = () => (upstream.readyState === WebSocket.OPEN ? upstream.send(text) : early.push(data));
        if (holdingOperations && text.includes('"subscribe"')) operations.push({ text, send });
        else send();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    heldOperations: () => operations.map((o) => o.text),
    releaseOperations: () => {
      holdingOperations = false;
      for (const held of operations.splice(0)) held.send();
    },
    heldAnswers: () => answers.map((a) => a.body),
    holdAnswers: (matches) => void (answerMatch = matches),
    releaseAnswers: () => {
      answerMatch = null;
      for (const held of answers.splice(0)) held.send();
    },
    close: async () => {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
