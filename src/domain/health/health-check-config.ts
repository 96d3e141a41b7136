import type { LabelSelector } from "../shared/label-selector.js";

/** A node condition that, held for longer than its timeout, makes the node unhealthy. */
export interface UnhealthyCondition {
  readonly type: string;
  readonly status: string;
  readonly timeoutSeconds: number;
}

/** How many unhealthy targets a check tolerates before it stops remediating. */
export type MaxUnhealthy = { readonly kind: "count"; readonly value: number } | { readonly kind: "percent"; readonly value: number };

/** One `health_checks` entry of the config file, validated and with defaults applied. */
export interface HealthCheckConfig {
  readonly name: string;
  /** On Node labels; never empty. */
  readonly selector: LabelSelector;
  readonly unhealthyConditions: readonly UnhealthyCondition[];
  /** Default 100%. */
  readonly maxUnhealthy: MaxUnhealthy;
  /** Takes precedence over maxUnhealthy when set. */
  readonly unhealthyRange: { readonly min: number; readonly max: number } | null;
  /** The repair operation to enqueue. */
  readonly operation: string;
  /** Where the machine type comes from: sabakan's bmcType for the address, or a Node label. */
  readonly machineType: { readonly from: "sabakan" } | { readonly from: "label"; readonly label: string };
  readonly paused: boolean;
}

/** Nodes with this annotation are not targets at all (Cluster API's skip-remediation, for Nodes). */
export const SKIP_REMEDIATION_ANNOTATION = "kintsugi.cybozu.io/skip-remediation";

/** Reads `"40%"` or `3` as a MaxUnhealthy; null when it is neither a non-negative integer nor a 0-100 percentage. */
export function parseMaxUnhealthy(value: number | string): MaxUnhealthy | null {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? { kind: "count", value } : null;
  const m = /^(\d+)%$/.exec(value.trim());
  if (m) {
    const percent = Number(m[1]);
    return percent <= 100 ? { kind: "percent", value: percent } : null;
  }
  return /^\d+$/.test(value.trim()) ? { kind: "count", value: Number(value) } : null;
}

/** Reads `"[1-3]"` as a range; null when malformed or when max < min. */
export function parseUnhealthyRange(value: string): { min: number; max: number } | null {
  const m = /^\[(\d+)-(\d+)\]$/.exec(value.trim());
  if (!m) return null;
  const [min, max] = [Number(m[1]), Number(m[2])];
  return max < min ? null : { min, max };
}

/** Writes a MaxUnhealthy as the config does: `40%` or `3`. */
export function formatMaxUnhealthy(max: MaxUnhealthy): string {
  return max.kind === "percent" ? `${max.value}%` : String(max.value);
}
