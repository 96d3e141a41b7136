import { expiredHolds, notHeldMessage, type StoredMachineHold } from "../../domain/machine-holds.js";
import { HoldRefusedError, type HoldDecision, type MachineHoldPort } from "../store-port.js";
import type { Db } from "./database.js";
import type { SqliteCommits } from "./sqlite-commits.js";

/** A machine_holds row as SQLite returns it (see migration 006). */
export interface MachineHoldRow {
  address: string;
  reason: string;
  set_by: string;
  set_at: number;
  until: number | null;
}

export function holdFromRow(r: MachineHoldRow): StoredMachineHold {
  return Object.freeze({ address: r.address, reason: r.reason, setBy: r.set_by, setAt: r.set_at, until: r.until });
}

/** The SQL that stores one hold, replacing the address's hold (shared with the copy's row writer). */
export const UPSERT_HOLD = `INSERT INTO machine_holds (address, reason, set_by, set_at, until) VALUES (@address, @reason, @setBy, @setAt, @until)
  ON CONFLICT (address) DO UPDATE SET reason = excluded.reason, set_by = excluded.set_by, set_at = excluded.set_at, until = excluded.until`;

/**
 * The machine holds in SQLite. Each write is one transaction that reads the stored holds and decides on them, so
 * the bound on holds is checked against what is stored when the hold is written.
 */
export class SqliteMachineHoldStore implements MachineHoldPort {
  private readonly selectAll;
  private readonly upsert;
  private readonly remove;

  constructor(
    db: Db,
    private readonly commits: SqliteCommits,
  ) {
    this.selectAll = db.prepare("SELECT * FROM machine_holds ORDER BY address");
    this.upsert = db.prepare(UPSERT_HOLD);
    this.remove = db.prepare("DELETE FROM machine_holds WHERE address = ?");
  }

  list(): StoredMachineHold[] {
    return (this.selectAll.all() as MachineHoldRow[]).map(holdFromRow);
  }

  async hold(decide: (stored: readonly StoredMachineHold[]) => HoldDecision, actor: string): Promise<StoredMachineHold> {
    return this.commits.write((draft) => {
      const decision = decide(this.list());
      if (!decision.ok) throw new HoldRefusedError(decision.message);
      const hold = Object.freeze({ ...decision.hold });
      this.upsert.run(hold);
      draft.holds.push({ kind: "set", hold, actor });
      return hold;
    });
  }

  async release(address: string, actor: string): Promise<StoredMachineHold> {
    return this.commits.write((draft) => {
      const hold = this.list().find((h) => h.address === address);
      if (hold === undefined) throw new HoldRefusedError(notHeldMessage(address));
      this.remove.run(address);
      draft.holds.push({ kind: "released", hold, actor });
      return hold;
    });
  }

  async removeExpired(now: number, actor: string): Promise<StoredMachineHold[]> {
    return this.commits.write((draft) => {
      const expired = expiredHolds(this.list(), now);
      for (const hold of expired) {
        this.remove.run(hold.address);
        draft.holds.push({ kind: "expired", hold, actor });
      }
      return expired;
    });
  }
}
