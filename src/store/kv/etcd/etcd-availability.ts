import { StoreUnavailableError, type StoreHealth } from "../../store-port.js";
import type { Log } from "../../../support/log.js";

/** A subset of grpc's CallOptions. */
export interface CallOptions {
  readonly deadline: number;
}

/**
 * Whether etcd answers, as this replica sees it: a failed call becomes a {@link StoreUnavailableError} naming the
 * endpoints and marks the store unhealthy until etcd answers again (the watch reconnects, a call or a probe succeeds).
 *
 * The probe asks etcd every `timeoutMs` whether it answers, whatever else this replica does: a replica that writes
 * nothing and whose watch stays connected to an etcd that is paused or cut off (no error ever reaches the stream)
 * would otherwise call the store healthy for the whole outage, and one whose call failed would stay unhealthy.
 */
export class EtcdAvailability {
  private watchFault: string | null = null;
  private callFault: string | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private beating = false;
  private closed = false;

  constructor(
    private readonly endpoints: readonly string[],
    readonly timeoutMs: number,
    probe: (options: CallOptions) => Promise<unknown>,
    private readonly log: Log,
  ) {
    this.heartbeat = setInterval(() => {
      if (this.beating) return;
      this.beating = true;
      probe(this.callOptions())
        .then(
          () => this.answered(),
          (err: unknown) => {
            if (!this.closed) this.failed("a periodic check that etcd answers", err);
          },
        )
        .finally(() => (this.beating = false));
    }, timeoutMs);
    this.heartbeat.unref();
  }

  callOptions(): CallOptions {
    return { deadline: Date.now() + this.timeoutMs };
  }

  health(): StoreHealth {
    const reason = this.watchFault ?? this.callFault;
    return reason === null ? { backend: "etcd", healthy: true } : { backend: "etcd", healthy: false, reason };
  }

  watchLost(cause: string): void {
    if (this.watchFault === null)
      this.log.warn("the etcd watch is disconnected; reads are served from what this replica has", { endpoints: this.endpoints, cause });
    this.watchFault = `the etcd watch on ${this.endpoints.join(", ")} is disconnected: ${cause}`;
  }

  watchRestored(): void {
    if (this.watchFault !== null) this.log.info("the etcd watch is connected again", { endpoints: this.endpoints });
    this.watchFault = null;
    this.answered();
  }

  answered(): void {
    this.callFault = null;
  }

  failed(what: string, err: unknown): StoreUnavailableError {
    const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    // Said once per outage, not once per call: callers go on trying while etcd is away.
    this.log[this.callFault === null ? "warn" : "debug"]("an etcd call failed", { endpoints: this.endpoints, what, cause });
    this.callFault = `etcd at ${this.endpoints.join(", ")} did not answer (${what}): ${cause}`;
    return new StoreUnavailableError(this.callFault, { cause: err });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
  }
}
