import { getOperationAST, type ExecutionArgs, type ExecutionResult } from "graphql";

type Started = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

/**
 * Starts a WebSocket connection's operations in the order its client sent them: an operation starts once every
 * subscription sent before it on the same connection listens to its topic. A client that subscribes, then sends a
 * query and waits for its answer, knows that every event published from then on reaches its subscriptions: a
 * snapshot it reads after that answer (over the socket or over HTTP) misses nothing. graphql-ws alone gives no such
 * order: each message is handled on its own, and a subscription listens only after a few turns of its own.
 *
 * graphql-ws calls onSubscribe for each message as it arrives, so `admit` sees them in the client's order; the
 * subscribe hook reports, through `listening`, when a subscription's stream is made (its source listens then).
 */
export class OperationOrder {
  /** Per connection, settled once every subscription admitted so far listens (or failed to start). */
  private readonly tails = new WeakMap<object, Promise<void>>();
  /** Per admitted subscription, what tells its connection that it listens. */
  private readonly listened = new WeakMap<ExecutionArgs, () => void>();

  /**
   * The arguments graphql-ws starts `args` with, on connection `socket`: at once when nothing sent before it is still
   * starting, else once it is.
   */
  admit(socket: object, args: ExecutionArgs): ExecutionArgs | Promise<ExecutionArgs> {
    const before = this.tails.get(socket);
    if (getOperationAST(args.document, args.operationName)?.operation === "subscription") {
      let done!: () => void;
      const own = new Promise<void>((resolve) => (done = resolve));
      this.listened.set(args, done);
      const tail = before === undefined ? own : Promise.all([before, own]).then(() => undefined);
      this.tails.set(socket, tail);
      // Once everything admitted has started, the connection owes nothing: later operations start at once.
      void tail.then(() => {
        if (this.tails.get(socket) === tail) this.tails.delete(socket);
      });
    }
    return before === undefined ? args : before.then(() => args);
  }

  /** Wraps the subscribe hook's work for `args`: its connection hears that it listens once `starting` settles, either way. */
  async listening(args: ExecutionArgs, starting: Promise<Started>): Promise<Started> {
    try {
      return await starting;
    } finally {
      this.listened.get(args)?.();
      this.listened.delete(args);
    }
  }
}
