import { initialSchema } from "./001-initial.js";
import { autoRepairOutcomesSchema } from "./002-auto-repair-outcomes.js";

/** A numbered schema change. Numbers only grow; an applied migration is never edited, only followed by another. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial", sql: initialSchema },
  { version: 2, name: "auto-repair outcomes", sql: autoRepairOutcomesSchema },
];
