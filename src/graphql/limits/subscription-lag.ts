import { getOperationAST, type DocumentNode } from "graphql";

/** Where a subscription's events start in its connection's bytes, oldest first, from `head` on. */
interface Starts {
  offsets: number[];
  head: number;
}

/**
 * The events each subscription of one connection was sent that its client has not shown it read, counted by where
 * each event starts in the connection's bytes against what the client acknowledged (see UnreadBytes): the lag rule
 * a subscription meets before its connection meets limits.max_buffered_bytes when its events are small. Counted
 * from what the client read, not from what the kernel took in: the kernel's buffers take megabytes that the
 * client never reads.
 */
export class UnreadEvents {
  private readonly bySubscription = new Map<string, Starts>();

  constructor(private readonly maxUnread: number) {}

  /**
   * Called as subscription `id` is handed an event that starts at byte `start` of the connection, the client having
   * read up to byte `acknowledged`. Returns false, and records nothing, when `maxUnread` of its events are unread
   * already: the subscription fell behind and is to be ended.
   */
  admit(id: string, start: number, acknowledged: number): boolean {
    let starts = this.bySubscription.get(id);
    if (!starts) {
      starts = { offsets: [], head: 0 };
      this.bySubscription.set(id, starts);
    }
    // An event starting before the acknowledged byte was read whole: acknowledgements fall between messages.
    while (starts.head < starts.offsets.length && (starts.offsets[starts.head] as number) < acknowledged) starts.head++;
    if (starts.head === starts.offsets.length) {
      starts.offsets.length = 0;
      starts.head = 0;
    } else if (starts.head > 1024 && starts.head * 2 > starts.offsets.length) {
      starts.offsets = starts.offsets.slice(starts.head);
      starts.head = 0;
    }
    if (starts.offsets.length - starts.head >= this.maxUnread) return false;
    starts.offsets.push(start);
    return true;
  }

  /** How many of subscription `id`'s events are recorded as unread (as of the last `admit`). */
  unread(id: string): number {
    const starts = this.bySubscription.get(id);
    return starts ? starts.offsets.length - starts.head : 0;
  }

  /** Forgets subscription `id` (it completed). */
  forget(id: string): void {
    this.bySubscription.delete(id);
  }
}

/** The root field a subscription document subscribes to (its topic), for the message that ends it. */
export function subscriptionTopic(document: DocumentNode, operationName?: string | null): string {
  const first = getOperationAST(document, operationName)?.selectionSet.selections[0];
  return first?.kind === "Field" ? first.name.value : "its topic";
}
