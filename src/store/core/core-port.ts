import type { KvDriver } from "../kv/kv-driver.js";
import type { Log } from "../../support/log.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import type { StoreWriter } from "./store-writer.js";
import { QueuePlan } from "./queue-plan.js";

/** What every port of the core works over: one driver and its key layout, the mirror it reads, the writer it writes with. */
export interface CoreParts {
  readonly driver: KvDriver;
  readonly keys: StoreKeys;
  readonly mirror: StoreMirror;
  readonly writer: StoreWriter;
  readonly log: Log;
}

/** A port of store-port.ts as the core implements it: reads served from the mirror, writes decided on it. */
export abstract class CorePort {
  protected readonly driver: KvDriver;
  protected readonly keys: StoreKeys;
  protected readonly mirror: StoreMirror;
  protected readonly writer: StoreWriter;
  protected readonly log: Log;

  constructor({ driver, keys, mirror, writer, log }: CoreParts) {
    this.driver = driver;
    this.keys = keys;
    this.mirror = mirror;
    this.writer = writer;
    this.log = log;
  }

  /** A new queue write, its history records naming the writer's replica. */
  protected queuePlan(): QueuePlan {
    return new QueuePlan(this.mirror, this.keys, this.writer.replica);
  }
}
