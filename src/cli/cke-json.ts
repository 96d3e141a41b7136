import { printableJson } from "../domain/shared/untrusted-text.js";
import type { EntryFieldsFragment } from "./generated/operations.js";

// Go's zero time.Time, which ckecli prints for a time that was never set.
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * An entry in the JSON shape of CKE's RepairQueueEntry (repair.go): its keys in the struct's field order, snake_case,
 * lower-case statuses, `index` as a string, `serial` and `drain_backoff_count` omitted when empty or 0 (`omitempty`),
 * and the times always present (Go's `omitempty` never omits a struct such as time.Time), so scripts written for
 * `ckecli repair-queue list` read it unchanged.
 */
export function toCkeEntry(e: EntryFieldsFragment): Record<string, unknown> {
  return {
    index: e.index,
    address: e.address,
    nodename: e.nodename,
    ...(e.serial && { serial: e.serial }),
    machine_type: e.machineType,
    operation: e.operation,
    status: e.status.toLowerCase(),
    step: e.step,
    step_status: e.stepStatus.toLowerCase(),
    deleted: e.deleted,
    last_transition_time: e.lastTransitionTime ?? GO_ZERO_TIME,
    ...(e.drainBackoffCount !== 0 && { drain_backoff_count: e.drainBackoffCount }),
    drain_backoff_expire: e.drainBackoffExpire ?? GO_ZERO_TIME,
  };
}

/**
 * JSON as ckecli prints it: 4-space indentation and a final newline; what sabakan or Kubernetes wrote into a string
 * reaches the terminal with its control characters as `\u` escapes (see {@link printableJson}).
 */
export function ckeJson(value: unknown): string {
  return `${printableJson(value, 4)}\n`;
}
