import { rootCertificates } from "node:tls";
import { BrokenCircuitError, handleWhen, noop, retry, type IDefaultPolicyContext, type IPolicy } from "cockatiel";
import { Etcd3, GRPCDeadlineExceededError, isRecoverableError, type IOptions } from "etcd3";
import type { EtcdConfig } from "../config/etcd-config.js";
import { EtcdClientConfigError, readEtcdTls, type EtcdTls } from "../config/etcd-tls.js";

/** The TLS credentials etcd3 hands to gRPC; null when no TLS key is set (https endpoints then use the system CAs). */
function credentialsOf(config: EtcdConfig, tls: EtcdTls): NonNullable<IOptions["credentials"]> | null {
  if (config.tlsCa === null && config.tlsClient === null) return null;
  const rootCertificate = Buffer.from(tls.caPem ?? rootCertificates.join("\n"));
  return tls.client === null
    ? { rootCertificate }
    : { rootCertificate, certChain: Buffer.from(tls.client.certPem), privateKey: Buffer.from(tls.client.keyPem) };
}

/**
 * An etcd client for the `etcd` section: TLS files read now, a deadline of `timeout` on every call that is not a
 * stream, keys not prefixed (callers put `config.prefix` in front). With several endpoints, a member that does not
 * answer is left for the others within about a keep-alive ping and a `timeout` (see {@link MemberAvoidance}).
 *
 * @throws EtcdClientConfigError listing every problem with the TLS material.
 */
export function etcdClientFor(config: EtcdConfig): Etcd3 {
  const read = readEtcdTls(config);
  if (!read.ok) throw new EtcdClientConfigError(read.problems);
  const credentials = credentialsOf(config, read.tls);
  const avoidance = config.endpoints.length > 1 ? new MemberAvoidance(config.endpoints) : null;
  return new Etcd3({
    hosts: [...config.endpoints],
    ...(config.auth !== null && { auth: { username: config.auth.username, password: config.auth.password } }),
    ...(credentials !== null && { credentials }),
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + config.timeoutMs }),
    // A watch catching up after an outage may carry many generated configurations at once: past gRPC's 4 MiB default
    // it would fail and retry the same batch for ever.
    grpcOptions: {
      "grpc.max_receive_message_length": MAX_RECEIVE_BYTES,
      // A member cut off (packets dropped, nothing refused) never ends a stream: the watch would wait on it for good
      // (every write waits for the watch), and so would etcd3's next stream there. A ping unanswered ends the
      // connection, its streams fail, and the watch moves to another member.
      "grpc.keepalive_time_ms": KEEPALIVE_TIME_MS,
      "grpc.keepalive_timeout_ms": config.timeoutMs,
    },
    faultHandling: {
      // etcd3's default watch back-off grows to 30 s: the mirror (and the commits subscribers wait for) would lag that
      // long behind an etcd that is back. Doubling from 100 ms up to 2 s reconnects quickly without hammering.
      watchBackoff: cappedBackoff(WATCH_BACKOFF_FIRST_MS),
      // etcd3 tries a call that failed on up to 3 members, all within the call's one deadline: a call that ran out
      // of time has none left, and trying it again fails at once on a member that is fine (and counts against it).
      global: retry(
        handleWhen((error) => isRecoverableError(error) && !(error instanceof GRPCDeadlineExceededError)),
        { maxAttempts: 3 },
      ),
      // One member: nothing to move to, etcd3's default (held off after 3 failures in a row, for 5 s) stays.
      ...(avoidance !== null && { host: (member: string) => avoidance.policyFor(member) }),
    },
  });
}

/** Past etcd's default `--grpc-keepalive-min-time` of 5 s: a member closes the connection of a client that pings more often. */
export const KEEPALIVE_TIME_MS = 6000;

const MAX_RECEIVE_BYTES = 256 * 1024 * 1024;
const WATCH_BACKOFF_FIRST_MS = 100;
const WATCH_BACKOFF_MAX_MS = 2000;

type WatchBackoff = NonNullable<NonNullable<IOptions["faultHandling"]>["watchBackoff"]>;

function cappedBackoff(ms: number): WatchBackoff {
  return { duration: ms, next: () => cappedBackoff(Math.min(ms * 2, WATCH_BACKOFF_MAX_MS)) };
}

/** How long calls skip a member after one unanswered call: etcd3's own pause before it tries a member it holds off. */
const MEMBER_AVOIDED_MS = 5000;

/**
 * Whether a failed call says nothing came back from the member. An answer of etcd's (`etcdserver: leader changed`,
 * `no leader`, ...) says the member is there: when the member cut off led etcd, the two left elect a new leader and
 * both answer so for a moment; they must not be skipped along with the one cut off.
 */
export function unanswered(error: unknown): boolean {
  return error instanceof Error && isRecoverableError(error) && !error.message.includes("etcdserver:");
}

/**
 * Which etcd members calls skip. etcd3's default (a member held off after 3 failures in a row) lets keep-alives and
 * the watch land on a member cut off (packets dropped) again and again, and holds off every member at once when each
 * failed once, so no call is sent. Here a member is skipped after one unanswered failure, and only while another is
 * not skipped: with every member failing, calls go on being sent.
 */
export class MemberAvoidance {
  private readonly avoidedUntil = new Map<string, number>();

  constructor(
    private readonly members: readonly string[],
    private readonly avoidMs = MEMBER_AVOIDED_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** etcd3's `faultHandling.host` policy for `member`. */
  policyFor(member: string): IPolicy<IDefaultPolicyContext> {
    return {
      _altReturn: undefined as never,
      onSuccess: noop.onSuccess,
      onFailure: noop.onFailure,
      execute: async (fn, signal = new AbortController().signal) => {
        // etcd3 takes this error for a member held off, and tries the next one; the call was never sent.
        if (this.skips(member)) throw new BrokenCircuitError();
        try {
          const result = await fn({ signal });
          this.avoidedUntil.delete(member);
          return result;
        } catch (error) {
          if (unanswered(error)) this.avoidedUntil.set(member, this.clock() + this.avoidMs);
          throw error;
        }
      },
    };
  }

  /** Whether calls skip `member` now: it failed unanswered lately, and some other member has not. */
  skips(member: string): boolean {
    const now = this.clock();
    const avoided = (m: string) => (this.avoidedUntil.get(m) ?? 0) > now;
    return avoided(member) && this.members.some((m) => !avoided(m));
  }
}
