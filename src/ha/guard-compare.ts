import { CompareResult, CompareTarget, type ICompare } from "etcd3";
import { NotLeaderError, type WriteGuard } from "../store/store-port.js";

/**
 * The compare a guarded write puts in its etcd transaction, next to its own compares: the leader's election key
 * still exists with the create revision it had when this replica became leader. A leader whose lease was lost
 * (paused, partitioned) finds its key gone or created anew, and the transaction fails without writing anything.
 * Use it on a client without a namespace (`client.kv.txn`): the key is absolute.
 *
 * @throws NotLeaderError when the guard does not hold now: the write is refused before anything is sent to etcd.
 */
export function guardCompare(guard: WriteGuard): ICompare {
  const held = guard.current();
  if (held === null) throw new NotLeaderError("this replica is not the leader: only the leader writes this");
  return { key: Buffer.from(held.key), target: CompareTarget.Create, result: CompareResult.Equal, create_revision: held.createRevision };
}
