import { DEFAULT_ETCD_MAX_REQUEST_BYTES, DEFAULT_ETCD_MAX_TXN_OPS } from "../../config/etcd-config.js";
import type { WritePlan } from "./store-writer.js";
import type { KvTxnLimits } from "../kv/kv-driver.js";

/** etcd's own defaults (etcd 3.4 to 3.6): 128 operations, 1.5 MiB. */
export const DEFAULT_ETCD_WRITE_LIMITS: KvTxnLimits = { maxTxnOps: DEFAULT_ETCD_MAX_TXN_OPS, maxRequestBytes: DEFAULT_ETCD_MAX_REQUEST_BYTES };

/** What one operation costs beyond its key and value bytes (protobuf tags and lengths), rounded up. */
const BYTES_PER_OPERATION = 32;
/** Room left in every request for the transaction's own framing, the guard and the failure branch's reads. */
const REQUEST_MARGIN_BYTES = 16 * 1024;

type PlanParts = Pick<WritePlan<unknown>, "compares" | "puts" | "deletes">;

/**
 * Why `plan` would not fit one transaction as StoreWriter commits it, or null: its largest branch in operations (the
 * guard's compare; on failure a read of it plus one per compare) and its bytes, an estimate from above.
 */
export function overLimit(plan: PlanParts, guarded: boolean, limits: KvTxnLimits): string | null {
  const compares = plan.compares.length + (guarded ? 1 : 0);
  const success = plan.puts.length + (plan.deletes?.length ?? 0);
  const failure = plan.compares.length + 1;
  const ops = Math.max(compares, success, failure);
  let bytes = 0;
  for (const c of plan.compares) bytes += 2 * (Buffer.byteLength(c.key) + BYTES_PER_OPERATION);
  for (const p of plan.puts) bytes += Buffer.byteLength(p.key) + Buffer.byteLength(p.value) + BYTES_PER_OPERATION;
  for (const d of plan.deletes ?? []) bytes += Buffer.byteLength(d.start) + Buffer.byteLength(d.end) + BYTES_PER_OPERATION;
  if (ops > limits.maxTxnOps) return `${ops} operations in one transaction, more than etcd's --max-txn-ops (${limits.maxTxnOps})`;
  if (bytes > limits.maxRequestBytes - REQUEST_MARGIN_BYTES) {
    return `about ${bytes} bytes in one request, more than etcd's --max-request-bytes (${limits.maxRequestBytes}) leaves room for`;
  }
  return null;
}

/** The limits given in the config, checked: whole numbers in etcd's own ranges. */
export function checkedLimits(limits: Partial<KvTxnLimits> | undefined): KvTxnLimits {
  const merged = { ...DEFAULT_ETCD_WRITE_LIMITS, ...limits };
  if (!Number.isInteger(merged.maxTxnOps) || merged.maxTxnOps < 8)
    throw new Error(`etcd's max-txn-ops must be a whole number of at least 8, got ${merged.maxTxnOps}`);
  if (!Number.isInteger(merged.maxRequestBytes) || merged.maxRequestBytes < 64 * 1024) {
    throw new Error(`etcd's max-request-bytes must be a whole number of at least 65536, got ${merged.maxRequestBytes}`);
  }
  return merged;
}

/**
 * The plan of the most of `count` items that fits one transaction (`build(n)` plans the first n), by binary search
 * below `ceiling`. When not even one fits, the plan of one is returned: the writer then refuses it with the limit.
 */
export function largestFitting<P>(count: number, ceiling: number, build: (n: number) => P, fits: (plan: P) => boolean): { plan: P; taken: number } {
  const first = Math.max(1, Math.min(count, ceiling));
  const whole = build(first);
  if (fits(whole)) return { plan: whole, taken: first };
  let best: { plan: P; taken: number } | null = null;
  let low = 1;
  let high = first - 1;
  while (low <= high) {
    const n = Math.floor((low + high) / 2);
    const plan = build(n);
    if (fits(plan)) {
      best = { plan, taken: n };
      low = n + 1;
    } else high = n - 1;
  }
  return best ?? { plan: build(1), taken: 1 };
}
