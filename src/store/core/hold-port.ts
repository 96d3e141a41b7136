import { expiredHolds, notHeldMessage, type StoredMachineHold } from "../../domain/holds/machine-holds.js";
import { HoldRefusedError, type HoldChange, type HoldDecision, type MachineHoldPort } from "../store-port.js";
import { keyRange } from "../kv/kv-driver.js";
import { encodeValue } from "./store-values.js";
import { stampedWrite, type WritePlan } from "./store-writer.js";
import { CorePort } from "./core-port.js";

/** The most holds one expiry write removes: etcd refuses more than 128 operations in a transaction by default. */
const EXPIRED_PER_WRITE = 100;

/**
 * Machine holds, one key per address, read from the mirror. Every hold write compares and rewrites the holds head,
 * so replicas' writes are serialized (this keeps them from together passing the bound); the head carries the write's
 * changes, which the watch announces.
 */
export class CoreHoldPort extends CorePort implements MachineHoldPort {
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

  removeExpired(now: number, actor: string): Promise<StoredMachineHold[]> {
    const expired = () => expiredHolds(this.mirror.holdList(), now);
    const plan = (holds: readonly StoredMachineHold[], writeId: string) =>
      this.plan(
        writeId,
        holds.map((hold): HoldChange => ({ kind: "expired", hold, actor })),
        holds,
      );
    return this.writer.inParts("removing expired machine holds", expired, plan, EXPIRED_PER_WRITE);
  }

  /** The head's value decides nothing (it is no counter), so an unreadable one is simply replaced. */
  private plan<T>(writeId: string, changes: readonly HoldChange[], result: T): WritePlan<T> {
    const puts = changes.filter((c) => c.kind === "set").map((c) => ({ key: this.keys.hold(c.hold.address), value: encodeValue({ hold: c.hold }) }));
    const deletes = changes.filter((c) => c.kind !== "set").map((c) => keyRange(this.keys.hold(c.hold.address)));
    return stampedWrite(this.keys.holdsHead, this.mirror.holdsHead, writeId, { changes }, { puts, deletes }, result);
  }
}
