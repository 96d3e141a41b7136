// The usual API queries bench/api loads kintsugi with, which bench/stats compares repairStats against.

/** The 100-entry queue listing with 12 scalar fields each (bench/api adds 100 entries). */
export const SEARCH_REPAIR_ENTRIES = `{ searchRepairEntries { index address nodename serial machineType operation status step stepStatus deleted lastTransitionTime drainBackoffCount } }`;
