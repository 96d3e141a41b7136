/** The commands kintsugi runs for an entry. */
export type EntryCommand = "repair" | "diagnostics" | "success";

/** One run of one replica: its name and an id drawn when the process started (a restart is another run). */
export interface CommandOwner {
  readonly replica: string;
  readonly run: string;
}

/**
 * What an entry records of its command (the stored field `command`): set `due` (no operation id, no start) when a
 * pass decides to run the step's repair command, set `started` in the write committed just before a command starts,
 * and removed by the write that records its outcome. While it is there, the command may be running on the machine,
 * possibly started by another replica than the one reading it.
 */
export interface CommandMarker {
  readonly command: EntryCommand;
  /** null: due, not started yet. */
  readonly operationId: string | null;
  readonly replica: string;
  readonly run: string;
  /** When it started, on the starting replica's clock (ms since the epoch); null while due. */
  readonly startedAt: number | null;
  /** Its `command_timeout_seconds` (0: none). */
  readonly timeoutSeconds: number;
}

/** The kill grace of a command's process group (SIGTERM, then SIGKILL after this): the runner's and the backstop's. */
export const COMMAND_KILL_GRACE_SECONDS = 2;
/** The backstop kills a command `timeout + grace + this` after it started, when its replica could not. */
export const COMMAND_BACKSTOP_SLACK_SECONDS = 1;
/** A command must start within this of its recorded start, or it does not start (its replica stalled meanwhile). */
export const COMMAND_START_WINDOW_SECONDS = 3;
/** The least margin: past it, a command is dead on its own host's clock; the rest of a margin covers clock skew. */
export const MIN_INHERITED_COMMAND_MARGIN_SECONDS = COMMAND_KILL_GRACE_SECONDS + COMMAND_BACKSTOP_SLACK_SECONDS + COMMAND_START_WINDOW_SECONDS;
/** The default margin: the least one, and 4 s of clock skew between the replicas' hosts. */
export const DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS = 10;

/** The marker of a repair command a pass decided to run for `entry` (0-based `step`) on `owner`. */
export function commandDue(owner: CommandOwner, timeoutSeconds: number): CommandMarker {
  return { command: "repair", operationId: null, replica: owner.replica, run: owner.run, startedAt: null, timeoutSeconds };
}

/** The marker of a command `owner` starts at `now` as `operationId`. */
export function commandStarted(command: EntryCommand, operationId: string, owner: CommandOwner, now: number, timeoutSeconds: number): CommandMarker {
  return { command, operationId, replica: owner.replica, run: owner.run, startedAt: now, timeoutSeconds };
}

/** What a reader of an entry must make of a command marker that no job of its own runs. */
export type InheritedCommand =
  /** It may still run: nothing may run on the machine until `until` (null: it has no timeout, a person must act). */
  | { readonly kind: "may-run"; readonly marker: CommandMarker; readonly until: number | null }
  /** It has certainly ended (at the latest at `until`; null: known to have ended here), its outcome unrecorded. */
  | { readonly kind: "interrupted"; readonly marker: CommandMarker; readonly until: number | null }
  /** It was decided but never started (its replica stopped first): it has not run. */
  | { readonly kind: "never-started"; readonly marker: CommandMarker };
