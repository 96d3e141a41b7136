import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { parse } from "graphql";
import type { WebSocket, WebSocketServer } from "ws";
import { slowReaderBounds } from "../../src/graphql/limits/slow-readers.js";

/** A connection whose client reads nothing: what the bounds read of it, and what it was sent so far. */
class StalledSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  queuedBytes = 0;
  ping(): void {}
  close(): void {
    this.readyState = 2;
  }
  terminate(): void {}
}

function bounds(subscriptionLag: number) {
  const wss = Object.assign(new EventEmitter(), { clients: new Set<StalledSocket>() });
  const readers = slowReaderBounds({ maxBufferedBytes: 1 << 30, maxTotalBufferedBytes: 1 << 30, subscriptionLag }, () => undefined);
  readers.watch(wss as unknown as WebSocketServer);
  const connect = () => {
    const socket = new StalledSocket();
    wss.clients.add(socket);
    wss.emit("connection", socket);
    return socket;
  };
  return { readers, connect };
}

describe("slowReaderBounds: the lag rule", () => {
  const args = { document: parse("subscription { repairEntryEvents { kind } }") };

  it("ends a subscription at its event after `subscriptionLag` unread ones, naming its topic; its neighbours go on", () => {
    const { readers, connect } = bounds(2);
    const socket = connect() as unknown as WebSocket & StalledSocket;
    const verdicts = ["a", "b", "a", "b", "a"].map((id) => {
      const verdict = readers.onNext(socket, id, args);
      socket.queuedBytes += 100;
      return verdict === null ? `${id} sent` : `${id} ${verdict.message}`;
    });
    assert.deepEqual(verdicts, ["a sent", "b sent", "a sent", "b sent", "a subscriber fell 2 events behind on repairEntryEvents and was closed"]);
  });

  it("ends every subscription of a topic that falls behind with one error, not one each", () => {
    const { readers, connect } = bounds(1);
    const errors = [connect(), connect()].flatMap((s) => {
      const socket = s as unknown as WebSocket & StalledSocket;
      return ["a", "b"].map((id) => {
        readers.onNext(socket, id, args);
        socket.queuedBytes += 100;
        return readers.onNext(socket, id, args);
      });
    });
    assert.ok(errors[0] instanceof Error);
    assert.ok(
      errors.every((e) => e === errors[0]),
      "the same error object for the four subscriptions",
    );
  });
});
