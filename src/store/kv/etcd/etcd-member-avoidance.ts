import { BrokenCircuitError, noop, type IDefaultPolicyContext, type IPolicy } from "cockatiel";
import { isRecoverableError } from "etcd3";

/**
 * How long calls skip an etcd member after one call to it failed without an answer from it (timed out, refused,
 * connection dropped): etcd3's own pause before it tries a member it holds off again.
 */
export const MEMBER_AVOIDED_MS = 5000;

/**
 * Whether a failed call says nothing came back from the member. An answer of etcd's (`etcdserver: leader changed`,
 * `no leader`, ...) says the member is there: when the member cut off led etcd, the two left elect a new leader and
 * both answer so for a moment; they must not be skipped along with the one cut off.
 */
export function unanswered(error: unknown): boolean {
  return error instanceof Error && isRecoverableError(error) && !error.message.includes("etcdserver:");
}

/**
 * Which etcd members calls skip, shared by the members of one client. etcd3 picks a member at random for every call
 * and stream; its default (a member held off after 3 failures in a row, each member on its own) lets a lease's
 * keep-alives and the watch land on a member that is cut off (packets dropped) again and again, each waiting out
 * its deadline, and holds off every member at once when each failed once (a loaded machine), so that no call is
 * even sent. Here a member is skipped for {@link MEMBER_AVOIDED_MS} after one unanswered failure, and only while
 * another member is not skipped: with every member failing, calls go on being sent, and the first answer counts.
 */
export class MemberAvoidance {
  private readonly avoidedUntil = new Map<string, number>();

  constructor(
    private readonly members: readonly string[],
    private readonly avoidMs = MEMBER_AVOIDED_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The policy etcd3 runs each call to `member` through (its `faultHandling.host`). */
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
