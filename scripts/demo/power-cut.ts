import { POWER_CUT_RACK, type DataCenter } from "./data-center.js";
import { formatClock } from "./story.js";

/**
 * The rack's power goes: every machine of it stops, and sabakan marks them all UNREACHABLE in one step (set in
 * sabakan directly, not one by one through kintsugi: a poll between two reports would see a rack only partly down).
 * Returns the story's line.
 */
export function cutPower(dc: DataCenter, backAt: number): string {
  const rack = dc.machines.filter((m) => m.rack === POWER_CUT_RACK);
  for (const m of rack) {
    dc.hardware.fail(m.address);
    dc.sabakan.setState(m.serial, "UNREACHABLE");
  }
  return (
    `rack ${POWER_CUT_RACK} lost power: its ${rack.length} machines are UNREACHABLE in sabakan; kintsugi's next ` +
    `scheduled poll sees the whole rack down. Power returns at ${formatClock(backAt)}`
  );
}

/** The rack's power is back: its machines work and are HEALTHY in sabakan again. Returns the story's line. */
export function restorePower(dc: DataCenter, nextCut: number): string {
  const rack = dc.machines.filter((m) => m.rack === POWER_CUT_RACK);
  for (const m of rack) {
    dc.hardware.fix(m.address);
    dc.sabakan.setState(m.serial, "HEALTHY");
  }
  return (
    `rack ${POWER_CUT_RACK}'s power is back: its ${rack.length} machines boot and are HEALTHY in sabakan again, nothing to ` +
    `repair; kintsugi's next poll clears the hold-back. The power goes again at ${formatClock(nextCut)}`
  );
}
