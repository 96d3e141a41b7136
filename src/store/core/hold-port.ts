import { expiredHolds, notHeldMessage, type StoredMachineHold } from "../../domain/holds/machine-holds.js";
import { HoldRefusedError, type HoldChange, type HoldDecision, type MachineHoldPort } from "../store-port.js";
import type { StoreKeys, KeyRange } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import { encodeValue } from "./store-values.js";
import type { StoreWriter, WritePlan } from "./store-writer.js";

/**
 * The most holds one expiry write removes: etcd refuses a transaction of more than 128 operations by default, and the
 * head's list of changes stays far below its request limit. More expired holds are removed by further writes.
 */
export const EXPIRED_PER_WRITE = 100;

/**
 * Machine holds on etcd, one key per address, read from the mirror. Every hold write compares and rewrites the holds
 * head, so two replicas' writes are serialized: the second is decided again on the holds the first left (this is what
 * keeps replicas from together passing the bound). The head carries the write's changes, which the watch announces.
 */
export class CoreHoldPort implements MachineHoldPort {
  constructor(
    private readonly keys: StoreKeys,
    private readonly mirror: StoreMirror,
    private readonly writer: StoreWriter,
  ) {}

  list(): StoredMachineHold[] {
    return [...this.mirror.holdList()];
  }

  hold(decide: (stored: readonly StoredMachineHold[]) => HoldDecision, actor: string): Promise<StoredMachineHold> {
    return this.writer.write("holding a machine", (writeId) => {
      const decision = decide(this.mirror.holdList());
      if (!decision.ok) throw new HoldRefusedError(decision.message);
      const hold = decision.hold;
      return this.plan(writeId, [{ kind: "set", hold, actor }], hold);
    });
  }

  release(address: string, actor: string): Promise<StoredMachineHold> {
    return this.writer.write("releasing a machine", (writeId) => {
      const hold = this.mirror.holdList().find((h) => h.address === address);
      if (hold === undefined) throw new HoldRefusedError(notHeldMessage(address));
      return this.plan(writeId, [{ kind: "released", hold, actor }], hold);
    });
  }

  async removeExpired(now: number, actor: string): Promise<StoredMachineHold[]> {
    const removed: StoredMachineHold[] = [];
    for (;;) {
      const batch = await this.writer.write("removing expired machine holds", (writeId) => {
        const expired = expiredHolds(this.mirror.holdList(), now).slice(0, EXPIRED_PER_WRITE);
        if (expired.length === 0) return { none: [] };
        return this.plan(
          writeId,
          expired.map((hold): HoldChange => ({ kind: "expired", hold, actor })),
          expired,
        );
      });
      removed.push(...batch);
      if (batch.length < EXPIRED_PER_WRITE) return removed;
    }
  }

  /**
   * One transaction: the head compared and rewritten with `changes`, each set hold put, each other one deleted. The
   * head's value decides nothing (it is no counter), so an unreadable one is simply replaced.
   */
  private plan<T>(writeId: string, changes: readonly HoldChange[], result: T): WritePlan<T> {
    const { holdsHead } = this.keys;
    const single = (key: string): KeyRange => ({ start: key, end: `${key}\0` });
    return {
      compares: [{ key: holdsHead, modRevision: this.mirror.holdsHead?.modRevision ?? 0 }],
      puts: [
        ...changes.filter((c) => c.kind === "set").map((c) => ({ key: this.keys.hold(c.hold.address), value: encodeValue({ hold: c.hold }) })),
        { key: holdsHead, value: encodeValue({ w: writeId, changes }) },
      ],
      deletes: changes.filter((c) => c.kind !== "set").map((c) => single(this.keys.hold(c.hold.address))),
      stamp: holdsHead,
      result,
    };
  }
}
