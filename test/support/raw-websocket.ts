import WebSocket from "ws";

/** Opens a bare graphql-transport-ws socket to `${url}/graphql` (nothing sent yet): for the connection limits. */
export function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** The close code and reason of `socket` once it closes ([0, ""] if it had already closed). */
export function closed(socket: WebSocket): Promise<[number, string]> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve([0, ""]);
  return new Promise((resolve) => socket.once("close", (code, reason) => resolve([code, String(reason)])));
}

/** Whether the server acknowledges a connection_init on `socket` (it was admitted). */
export async function acknowledged(socket: WebSocket): Promise<boolean> {
  socket.send(JSON.stringify({ type: "connection_init" }));
  const message = await new Promise<string | null>((resolve) => {
    socket.once("message", (data) => resolve(String(data)));
    socket.once("close", () => resolve(null));
  });
  return message !== null && (JSON.parse(message) as { type: string }).type === "connection_ack";
}
