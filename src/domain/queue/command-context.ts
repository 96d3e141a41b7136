import type { MachineBmc } from "../sabakan/machine-bmc.js";
import type { RepairEntry } from "./repair-entry.js";
import type { EntryTransition } from "./repair-plan.js";
import type { CommandMarker } from "./command-marker.js";

/** The environment variables that tell a command which entry, step and attempt it is part of, and which BMC to reach. */
export const COMMAND_CONTEXT_VARIABLES = [
  "KINTSUGI_ENTRY_INDEX",
  "KINTSUGI_STEP",
  "KINTSUGI_ATTEMPT",
  "KINTSUGI_OPERATION_ID",
  "KINTSUGI_SERIAL",
  "KINTSUGI_NODE",
  "KINTSUGI_BMC_ADDRESS",
  "KINTSUGI_BMC_TYPE",
] as const;

export type CommandContextVariable = (typeof COMMAND_CONTEXT_VARIABLES)[number];

/** The longest serial or node name a command gets; a longer one is passed empty, as unknown. */
export const MAX_CONTEXT_VALUE_LENGTH = 256;

// A NUL byte makes the command impossible to start; other controls would let a hostile value forge a script's log.
const CONTROL = /[\u0000-\u001f\u007f]/u;

/**
 * A serial or node name (from sabakan, Kubernetes or the API: untrusted) as a command gets it: as it is when it is a
 * plain value, else empty (as when unknown), so a hostile value can neither stop the command from starting nor
 * reach its log.
 */
function contextValue(value: string): string {
  return value.length > MAX_CONTEXT_VALUE_LENGTH || CONTROL.test(value) ? "" : value;
}

/** One run of a command that is part of a step: its try number within the step's retries and its operation id. */
export interface CommandAttemptIdentity {
  /** 1 for the first try, 2 for the first retry, and so on. */
  readonly attempt: number;
  /** Unique per step attempt; recorded in the entry's history before the command starts. */
  readonly operationId: string;
}

/**
 * The operation id of one attempt: `<entry index>-<step, 1-based>-<attempt>-<suffix>`. The index, step and attempt
 * make it readable in a BMC script's log; `suffix` (random, chosen by the runner) keeps it unique when the same
 * attempt is made again, e.g. by another database or a restored backup.
 */
export function operationIdFor(entry: Pick<RepairEntry, "index" | "step">, attempt: number, suffix: string): string {
  return `${entry.index}-${entry.step + 1}-${attempt}-${suffix}`;
}

/**
 * The variables a command run for `entry` gets besides the operator's environment. `identity` is null for a
 * command that is not a recorded attempt (the health check, run at every pass): its KINTSUGI_ATTEMPT and
 * KINTSUGI_OPERATION_ID are empty. KINTSUGI_STEP is 1-based, as the history says "step 1"; KINTSUGI_SERIAL and
 * KINTSUGI_NODE are empty when the serial or the node is unknown (the machine is not a node), or when the value is
 * not plain (longer than MAX_CONTEXT_VALUE_LENGTH, or with a control character). KINTSUGI_BMC_ADDRESS and
 * KINTSUGI_BMC_TYPE are the machine's BMC as sabakan last described it (`spec.bmc.ipv4`, `spec.bmc.bmcType`), both
 * empty when `bmc` is null (sabakan never named the machine, or gave no IPv4 literal for its BMC): a BMC command
 * then stops with its own message instead of reaching another machine.
 */
export function commandEnvironment(
  entry: Pick<RepairEntry, "index" | "step" | "serial" | "nodename">,
  identity: CommandAttemptIdentity | null,
  bmc: MachineBmc | null,
): Record<CommandContextVariable, string> {
  return {
    KINTSUGI_ENTRY_INDEX: String(entry.index),
    KINTSUGI_STEP: String(entry.step + 1),
    KINTSUGI_ATTEMPT: identity === null ? "" : String(identity.attempt),
    KINTSUGI_OPERATION_ID: identity?.operationId ?? "",
    KINTSUGI_SERIAL: contextValue(entry.serial ?? ""),
    KINTSUGI_NODE: contextValue(entry.nodename),
    KINTSUGI_BMC_ADDRESS: bmc?.address ?? "",
    KINTSUGI_BMC_TYPE: bmc?.type ?? "",
  };
}

/**
 * The history note committed before a command starts, naming its operation id: a script's log can be joined with
 * the entry's history, and an id that appears here but never in the script's log is an attempt that never ran
 * (e.g. the process or leader failed between the commit and the start). kintsugi: with `marker`, the entry records
 * the command as started (see entry-command.ts), so whoever reads it knows the command may be running; otherwise
 * the entry itself does not change.
 */
export function attemptStartNote(entry: RepairEntry, command: string, identity: CommandAttemptIdentity, marker?: CommandMarker): EntryTransition {
  return {
    after: marker === undefined ? entry : { ...entry, command: marker },
    kind: "note",
    reason: `step ${entry.step + 1}: starting the ${command}, attempt ${identity.attempt} (operation id ${identity.operationId})`,
  };
}
