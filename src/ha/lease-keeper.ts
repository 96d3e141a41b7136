import type { Etcd3, ILeaseKeepAliveResponse } from "etcd3";
import { leaseValidUntil } from "../domain/service/leadership.js";

export interface LeaseKeeperOptions {
  readonly client: Etcd3;
  readonly ttlSeconds: number;
  /** A monotonic clock in milliseconds (`performance.now`): a wall-clock jump must not stretch a lease. */
  readonly clock: () => number;
  /** Called once when the lease is certainly or possibly gone; the keeper has stopped by then. */
  readonly onLost: (reason: string) => void;
}

/** The pause before a keep-alive is sent again after one failed. */
const RETRY_AFTER_FAILURE_MS = 100;

/** Why a lease counts as lost when etcd could not be reached for a whole TTL. */
export function leaseUnanswered(id: string, ttlSeconds: number): string {
  return `no keep-alive of lease ${id} was answered within its TTL of ${ttlSeconds} s`;
}

/** Sends one keep-alive on a stream of its own and waits for etcd's answer, for at most `timeoutMs`. */
async function keepAliveOnce(client: Etcd3, id: string, timeoutMs: number): Promise<ILeaseKeepAliveResponse> {
  const stream = await client.leaseClient.leaseKeepAlive({ deadline: Date.now() + timeoutMs });
  return new Promise((resolve, reject) => {
    // Stays attached after the answer: a late error of an ended stream must not become an uncaught one.
    stream.on("error", reject);
    stream.on("data", (answer) => {
      resolve(answer);
      stream.end();
    });
    stream.write({ ID: id });
  });
}

/**
 * An etcd lease kept alive by this replica: a keep-alive every third of the TTL (as etcd's Go client does), and a
 * local deadline that only an answered keep-alive moves forward. When the deadline passes (etcd unreachable for a
 * whole TTL) or etcd answers that the lease is gone (expired, revoked by anyone), `onLost` is called, at once.
 */
export class LeaseKeeper {
  readonly id: string;
  private readonly options: LeaseKeeperOptions;
  private validUntilMs: number;
  private stopped = false;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;

  private constructor(options: LeaseKeeperOptions, id: string, validUntilMs: number) {
    this.options = options;
    this.id = id;
    this.validUntilMs = validUntilMs;
  }

  /** Grants a lease of `ttlSeconds` and starts keeping it alive. Rejects when etcd does not grant it. */
  static async grant(options: LeaseKeeperOptions): Promise<LeaseKeeper> {
    const sentAt = options.clock();
    const granted = await options.client.leaseClient.leaseGrant({ TTL: options.ttlSeconds, ID: 0 });
    if (granted.error) throw new Error(`etcd did not grant the lease: ${granted.error}`);
    const keeper = new LeaseKeeper(options, granted.ID, leaseValidUntil(sentAt, Number(granted.TTL)));
    keeper.armExpiry();
    keeper.scheduleKeepAlive();
    return keeper;
  }

  /** Until when (on the options' clock) the lease is certainly alive in etcd. */
  validUntil(): number {
    return this.validUntilMs;
  }

  /** Stops keeping the lease alive; it then expires in etcd after its TTL. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.keepAliveTimer);
    clearTimeout(this.expiryTimer);
  }

  /** Stops, and revokes the lease in etcd: every key attached to it is deleted at once. */
  async revoke(): Promise<void> {
    this.stop();
    await this.options.client.leaseClient.leaseRevoke({ ID: this.id });
  }

  private get intervalMs(): number {
    return (this.options.ttlSeconds * 1000) / 3;
  }

  private lose(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.options.onLost(reason);
  }

  private scheduleKeepAlive(delayMs = this.intervalMs): void {
    if (this.stopped) return;
    this.keepAliveTimer = setTimeout(() => void this.keepAlive(), delayMs);
  }

  private async keepAlive(): Promise<void> {
    const sentAt = this.options.clock();
    try {
      // Half an interval: a keep-alive sent to a member that is cut off fails early enough for the next one, sent at
      // once to another member, to be answered well within the TTL.
      const answer = await keepAliveOnce(this.options.client, this.id, this.intervalMs / 2);
      if (this.stopped) return;
      const ttl = Number(answer.TTL);
      if (!(ttl > 0)) {
        this.lose(`etcd says lease ${this.id} has expired or was revoked`);
        return;
      }
      this.validUntilMs = Math.max(this.validUntilMs, leaseValidUntil(sentAt, ttl));
      this.armExpiry();
    } catch {
      // etcd unreachable or slow, or the member asked cut off: try again soon (etcd3 then avoids that member), not a
      // whole interval later, when a TTL of 3 intervals may have run out; the expiry timer decides when it is too late.
      this.scheduleKeepAlive(RETRY_AFTER_FAILURE_MS);
      return;
    }
    this.scheduleKeepAlive();
  }

  private armExpiry(): void {
    clearTimeout(this.expiryTimer);
    if (this.stopped) return;
    const left = this.validUntilMs - this.options.clock();
    if (left <= 0) {
      this.lose(leaseUnanswered(this.id, this.options.ttlSeconds));
      return;
    }
    this.expiryTimer = setTimeout(() => this.armExpiry(), left);
  }
}
