import type { SkipKind } from "../domain/intake/skip-kinds.js";

/** The GraphQL spelling of every skip kind (SkipKind, and MachineFate, which adds ENQUEUED), to the domain's. */
export const SKIP_KIND_VALUES = {
  RACK_LIMIT: "rack_limit",
  QUEUE_LIMIT: "queue_limit",
  REBOOTING: "rebooting",
  OUT_OF_CLUSTER: "out_of_cluster",
  RECENTLY_REPAIRED: "recently_repaired",
  NO_ADDRESS: "no_address",
  INVALID_ADDRESS: "invalid_address",
  DUPLICATE_ADDRESS: "duplicate_address",
  HELD: "held",
  ESCALATED: "escalated",
} as const satisfies Record<string, SkipKind>;
