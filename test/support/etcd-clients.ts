import { Etcd3, type IOptions } from "etcd3";

type Backoff = NonNullable<NonNullable<IOptions["faultHandling"]>["watchBackoff"]>;

/** Retries a lost watch every `ms`, not on etcd3's default back-off (which grows to 30 s and would slow the tests). */
function steadyBackoff(ms: number): Backoff {
  const backoff: Backoff = { duration: ms, next: () => backoff };
  return backoff;
}

/** An etcd client for tests, on the given endpoints. Close it in an `after` hook. */
export function testEtcdClient(endpoints: readonly string[]): Etcd3 {
  return new Etcd3({ hosts: [...endpoints], dialTimeout: 2000, faultHandling: { watchBackoff: steadyBackoff(100) } });
}

type Comparator = ReturnType<Etcd3["if"]>;
type TxnResponse = Awaited<ReturnType<Comparator["commit"]>>;
/** A transaction about to be sent: `commit()` sends it (again, when called again). */
type PendingTxn = Pick<Comparator, "commit">;

/**
 * The same client, except that each transaction is sent by `send` (given the transaction and the keys it compares),
 * whether it was built with the client's `if()` or sent raw through `kv.txn` (as the store's etcd driver does).
 */
function interceptingTransactions(client: Etcd3, send: (txn: PendingTxn, compared: ReadonlyArray<string | Buffer>) => Promise<TxnResponse>): Etcd3 {
  const kv = new Proxy(client.kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== "txn" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
      return (request: Parameters<Etcd3["kv"]["txn"]>[0], options?: Parameters<Etcd3["kv"]["txn"]>[1]) =>
        send(
          { commit: () => target.txn(request, options) },
          (request.compare ?? []).map((c) => c.key ?? Buffer.alloc(0)),
        );
    },
  });
  return new Proxy(client, {
    get(target, prop) {
      if (prop === "kv") return kv;
      if (prop === "if") {
        return (...first: Parameters<Etcd3["if"]>) => {
          const compared = [first[0]];
          const txn = target.if(...first);
          const proxy: Comparator = new Proxy(txn, {
            get(builder, name) {
              if (name === "and") {
                return (...more: Parameters<Comparator["and"]>) => {
                  compared.push(more[0]);
                  builder.and(...more);
                  return proxy;
                };
              }
              if (name === "commit") return () => send(builder, compared);
              const value = Reflect.get(builder, name, builder) as unknown;
              if (typeof value !== "function") return value;
              return (...args: unknown[]) => {
                const result: unknown = value.apply(builder, args);
                return result === builder ? proxy : result;
              };
            },
          });
          return proxy;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The same client, except that every transaction meets a competing write first: just before it is sent, `touch`
 * writes every key it compares again (same value, new revision), so its compares on revisions always fail. Keys that
 * do not exist are left alone. Only for showing what a store does when it conflicts for good.
 */
export function contendedEtcdClient(client: Etcd3, touch: Etcd3): Etcd3 {
  return interceptingTransactions(client, async (txn, compared) => {
    for (const key of compared) {
      const value = await touch.get(key).buffer();
      if (value !== null) await touch.put(key).value(value);
    }
    return txn.commit();
  });
}

/** The same client, except that `before(n)` runs (and is awaited) before its n-th transaction (from 1) is sent. */
export function beforeTransactionEtcdClient(client: Etcd3, before: (n: number) => Promise<void>): Etcd3 {
  let sent = 0;
  return interceptingTransactions(client, async (txn) => {
    await before(++sent);
    return txn.commit();
  });
}

/**
 * The same client, except that every transaction is sent twice and the caller gets the second answer: what happens
 * when an answer is lost and the client retries (etcd3 retries calls that failed as unavailable).
 */
export function answerLosingEtcdClient(client: Etcd3): Etcd3 {
  return interceptingTransactions(client, async (txn) => {
    await txn.commit();
    return txn.commit();
  });
}

/** The same client, except that its transactions fail as if etcd did not answer, from `fail()` until `heal()`. */
export function failingEtcdClient(client: Etcd3): { readonly client: Etcd3; fail(): void; heal(): void } {
  let failing = false;
  const failed = () => Object.assign(new Error("14 UNAVAILABLE: connection refused (simulated)"), { name: "GRPCUnavailableError" });
  return {
    client: interceptingTransactions(client, (txn) => (failing ? Promise.reject(failed()) : txn.commit())),
    fail: () => {
      failing = true;
    },
    heal: () => {
      failing = false;
    },
  };
}
