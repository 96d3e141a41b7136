import { z } from "../support/zod.js";

/** How long and how much of the sabakan polls' records (the what-if replay's input) are kept. */
export interface PollRecordsConfig {
  /** Records older than this are dropped (seconds). */
  readonly keepSeconds: number;
  /** Once the kept records (compressed) pass this many bytes, the oldest are dropped. */
  readonly maxBytes: number;
}

const DAY = 86_400;
const MIB = 1024 * 1024;

/**
 * Two weeks, so that "what would last week have been with other limits" is always answerable with a week to
 * spare; 64 MiB, which keeps those two weeks of one poll a minute (20,160 polls) at 3 KiB a poll on average
 * (a healthy data center's poll costs about a hundred bytes, a 1,000-machine storm's some tens of KiB) and stays
 * small next to the database's own history.
 */
export const DEFAULT_POLL_RECORDS: PollRecordsConfig = { keepSeconds: 14 * DAY, maxBytes: 64 * MIB };

/** The `poll_records` section as written. */
export const pollRecordsSection = z.strictObject({
  keep_days: z
    .int()
    .min(1)
    .max(366)
    .default(DEFAULT_POLL_RECORDS.keepSeconds / DAY),
  max_bytes: z
    .int()
    .min(MIB)
    .max(4096 * MIB)
    .default(DEFAULT_POLL_RECORDS.maxBytes),
});

export type PollRecordsSection = z.output<typeof pollRecordsSection>;

/** Renames the validated section; no section: the defaults. */
export function toPollRecordsConfig(section: PollRecordsSection | undefined): PollRecordsConfig {
  return section === undefined ? DEFAULT_POLL_RECORDS : { keepSeconds: section.keep_days * DAY, maxBytes: section.max_bytes };
}
