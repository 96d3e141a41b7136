import { BrokenCircuitError, noop, type IDefaultPolicyContext, type IPolicy } from "cockatiel";
import { isRecoverableError } from "etcd3";

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
