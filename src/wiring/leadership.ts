import type { KintsugiStore, WriteGuard } from "../store/store-port.js";

/**
 * Whether this replica may act on the world (repair, poll sabakan, run health checks, generate the cluster), and
 * who does. With SQLite the process is the only one on its file (the file lock), so it leads from start to close;
 * with etcd it leads while it holds the election (LeaderElection, in etcd-backend.ts).
 */
export interface Leadership {
  /** "sole": SQLite, always the leader; "elected": one of the replicas on etcd. */
  readonly kind: "sole" | "elected";
  /** This replica's name, as other replicas show it when it leads. */
  readonly replicaName: string;
  isLeader(): boolean;
  /** The leading replica's name (untrusted when it came from etcd: quote it), or null when none is known. */
  leader(): string | null;
  /**
   * The store for one term as leader, to be asked for when the term begins: its every write requires that this
   * replica still leads with the election key it held then (see {@link termGuard}).
   */
  guardedStore(store: KintsugiStore): KintsugiStore;
  /** Calls `elected` each time this replica becomes the leader and `deposed` each time it stops being one. */
  watch(listeners: { readonly elected: () => void; readonly deposed: (reason: string) => void }): void;
  start(): void;
  /** Resigns (etcd: a successor takes over at once instead of after the lease TTL). */
  stop(): Promise<void>;
}

/**
 * A guard that holds while `base` holds with the key it had when this was made: a term's late write (a job ending
 * after its term was deposed) cannot pass on the key of a later term, even when this replica was elected again in
 * between and another replica led meanwhile. null when `base` did not hold at the start (the term never writes).
 */
export function termGuard(base: WriteGuard): WriteGuard {
  const start = base.current();
  return {
    current() {
      const now = base.current();
      return start !== null && now !== null && now.key === start.key && now.createRevision === start.createRevision ? now : null;
    },
  };
}

/** The only process on a SQLite file: the leader from `start()` until `stop()`. */
export function soleLeadership(replicaName: string): Leadership {
  let listeners: { elected: () => void; deposed: (reason: string) => void } | null = null;
  let leading = false;
  return {
    kind: "sole",
    replicaName,
    isLeader: () => leading,
    leader: () => (leading ? replicaName : null),
    // The file lock makes it the only writer: no guard, but its records name it as a leader's do.
    guardedStore: (store) => store.guarded({ current: () => null }, replicaName),
    watch(l) {
      listeners = l;
    },
    start() {
      leading = true;
      listeners?.elected();
    },
    async stop() {
      if (!leading) return;
      leading = false;
      listeners?.deposed("this replica is stopping");
    },
  };
}
