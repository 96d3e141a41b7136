import { finishedSince, type FinishedRepair } from "../../domain/finished-repair.js";
import type { FinishedRepairPort } from "../store-port.js";
import type { EtcdMirror } from "./etcd-mirror.js";

/**
 * The finished repairs on etcd, served from the mirror (they are written by the queue writes, see QueuePlan, so a
 * record commits with the change that ended its repair).
 */
export class EtcdFinishedPort implements FinishedRepairPort {
  constructor(private readonly mirror: EtcdMirror) {}

  list(since: number | null = null): FinishedRepair[] {
    return finishedSince(this.mirror.finished.list(), since);
  }
}
