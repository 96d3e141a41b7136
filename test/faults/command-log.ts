import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The repair and health commands of the fault suite's machines: `sh faulty-machine.sh DIR REPLICA ACTION [SECONDS]
 * ADDRESS`. `run S` and `fix S` take S seconds and append to DIR/commands.log a `start` line, a `tick` every second
 * and an `end` line (`term` when SIGTERM ends them first); `fix` makes the machine healthy just before its `end`.
 * Each line is `KIND MILLISECONDS REPLICA ADDRESS ENTRY STEP ATTEMPT OPERATION_ID PID`, the middle four from the
 * KINTSUGI_* variables the runner passes. A SIGKILLed command leaves no last line: its last tick says when it was
 * last seen alive. `health` says whether DIR/healthy-ADDRESS exists and logs nothing.
 */
const SCRIPT = `#!/bin/sh
dir=$1; replica=$2; action=$3; shift 3
for a; do addr=$a; done
if [ "$action" = health ]; then
  if [ -f "$dir/healthy-$addr" ]; then echo true; else echo false; fi
  exit 0
fi
secs=$1
# One write per line (O_APPEND), so that the lines of commands running at once never mix.
say() {
  line="$1 $(date +%s%3N) $replica $addr \${KINTSUGI_ENTRY_INDEX:--} \${KINTSUGI_STEP:--} \${KINTSUGI_ATTEMPT:--} \${KINTSUGI_OPERATION_ID:--} $$"
  printf '%s\n' "$line" >> "$dir/commands.log"
}
trap 'say term; exit 143' TERM
say start
i=0
while [ "$i" -lt "$secs" ]; do
  sleep 1 & wait $!
  i=$((i + 1))
  if [ "$i" -lt "$secs" ]; then say tick; fi
done
if [ "$action" = fix ]; then touch "$dir/healthy-$addr"; fi
say end
`;

/** What a line of the command log says. */
export type CommandLogKind = "start" | "tick" | "end" | "term";

/** One line of the command log. */
export interface CommandLogLine {
  readonly kind: CommandLogKind;
  readonly time: number;
  readonly replica: string;
  readonly address: string;
  readonly entry: number;
  /** 1-based, as KINTSUGI_STEP. */
  readonly step: number;
  readonly attempt: number;
  readonly operationId: string;
  readonly pid: number;
}

/** One command as the log saw it (who ran it, for which entry and step): from its start to its last line. */
export interface CommandRun extends Omit<CommandLogLine, "kind" | "time"> {
  readonly start: number;
  /** Its last line's time: its end, or its last tick when it was killed without one. */
  readonly lastSeen: number;
  /** How it ended, or null when the log does not say (SIGKILLed, or still running). */
  readonly ended: "end" | "term" | null;
}

const KINDS: ReadonlySet<string> = new Set(["start", "tick", "end", "term"]);

const WHOLE = /^\d+$/;
// Milliseconds since the epoch from 2001 on: a line whose `date` failed has no time.
const EPOCH_MS = /^[1-9]\d{12}$/;

/**
 * Parses the log's text. A line that is not one of the script's is left out and counted in `unreadable`: the last
 * line while it is being written, or a broken one (which a run's report shows).
 */
export function parseCommandLog(text: string): { lines: CommandLogLine[]; unreadable: number } {
  const lines: CommandLogLine[] = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const f = line.split(" ");
    const [kind = "", time = "", replica = "", address = "", entry = "", step = "", attempt = "", operationId = "", pid = ""] = f;
    if (f.length !== 9 || !KINDS.has(kind) || !EPOCH_MS.test(time) || ![entry, step, attempt, pid].every((n) => WHOLE.test(n))) {
      unreadable++;
      continue;
    }
    lines.push({
      kind: kind as CommandLogKind,
      time: Number(time),
      replica,
      address,
      entry: Number(entry),
      step: Number(step),
      attempt: Number(attempt),
      operationId,
      pid: Number(pid),
    });
  }
  return { lines, unreadable };
}

/** Groups the lines into commands (one per process and operation id), in the order they started. */
export function commandRuns(lines: readonly CommandLogLine[]): CommandRun[] {
  const runs = new Map<string, CommandRun>();
  for (const line of lines) {
    const key = `${line.pid}/${line.operationId}/${line.replica}`;
    const run = runs.get(key);
    if (run === undefined) {
      if (line.kind !== "start") continue;
      const { kind: _kind, time, ...rest } = line;
      runs.set(key, { ...rest, start: time, lastSeen: time, ended: null });
      continue;
    }
    const ended = line.kind === "end" || line.kind === "term" ? line.kind : run.ended;
    runs.set(key, { ...run, lastSeen: Math.max(run.lastSeen, line.time), ended });
  }
  return [...runs.values()].sort((a, b) => a.start - b.start);
}

/** The machines of one fault-suite run: the script in a directory, the command log and the health files beside it. */
export class FaultyMachines {
  readonly script: string;

  constructor(readonly dir: string) {
    this.script = join(dir, "faulty-machine.sh");
    writeFileSync(this.script, SCRIPT, { mode: 0o755 });
  }

  /** argv of a command of the script as the replica `replica` runs it (the runner appends the address). */
  command(replica: string, action: "run" | "fix" | "health", seconds?: number): string[] {
    return ["sh", this.script, this.dir, replica, action, ...(seconds === undefined ? [] : [String(seconds)])];
  }

  setHealthy(address: string, healthy: boolean): void {
    const path = join(this.dir, `healthy-${address}`);
    if (healthy) writeFileSync(path, "");
    else rmSync(path, { force: true });
  }

  /** The commands logged so far. */
  runs(): CommandRun[] {
    return commandRuns(this.log().lines);
  }

  /** The command log's lines so far, and how many could not be read. */
  log(): { lines: CommandLogLine[]; unreadable: number } {
    const path = join(this.dir, "commands.log");
    return existsSync(path) ? parseCommandLog(readFileSync(path, "utf8")) : { lines: [], unreadable: 0 };
  }
}
