import { escapeControlCharacters } from "../shared/untrusted-text.js";

/** How a command ended. A failed repair command is a repair result, never a thrown error. */
export type CommandOutcome =
  | { readonly kind: "ok"; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "exit"; readonly code: number | null; readonly signal: string | null; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "timeout"; readonly timeoutSeconds: number; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "spawn-error"; readonly message: string }
  | { readonly kind: "aborted" };

/** How much of a command's output goes into an entry's history. */
export const OUTPUT_TAIL_CHARS = 2000;

/** Says in a few words how a command ended: "exit code 3", "timed out after 30s", "killed by SIGKILL". */
export function describeOutcome(outcome: CommandOutcome): string {
  switch (outcome.kind) {
    case "ok":
      return "exit code 0";
    case "exit":
      return outcome.code !== null ? `exit code ${outcome.code}` : `killed by ${outcome.signal ?? "a signal"}`;
    case "timeout":
      return `timed out after ${outcome.timeoutSeconds}s`;
    case "spawn-error":
      return `could not start: ${outcome.message}`;
    case "aborted":
      return "stopped by kintsugi";
  }
}

/** How much of a failed command's stderr its failure's reason quotes (the history's detail keeps more). */
export const FAILURE_TAIL_CHARS = 200;

/**
 * The end of a command's stderr as one printable line, for the reason of a failure, which the CLI, the watch, the
 * status page, the log and chat alerts show: the output is the machine's (a BMC tool's, a vendor script's) and so
 * untrusted. Its lines joined by ` | `, every control character escaped (`\x1b`), at most
 * {@link FAILURE_TAIL_CHARS} characters from its end (`…` before a cut); null when the command wrote nothing there.
 */
export function stderrTail(outcome: CommandOutcome): string | null {
  if (!("stderr" in outcome)) return null;
  const lines = outcome.stderr
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (lines.length === 0) return null;
  const text = escapeControlCharacters(lines.join(" | "));
  return text.length <= FAILURE_TAIL_CHARS ? text : `…${text.slice(-FAILURE_TAIL_CHARS)}`;
}

/** {@link describeOutcome}, and the tail of what the command said on stderr: `exit code 2; stderr: Unable to connect`. */
export function describeFailure(outcome: CommandOutcome): string {
  const tail = stderrTail(outcome);
  return tail === null ? describeOutcome(outcome) : `${describeOutcome(outcome)}; stderr: ${tail}`;
}

/** The command line and the tail of its output, for an entry's history; null when there is nothing to add. */
export function outcomeDetail(argv: readonly string[], outcome: CommandOutcome): string | null {
  const lines = [`command: ${JSON.stringify(argv)}`];
  if ("stderr" in outcome && outcome.stderr.trim() !== "") lines.push(`stderr: ${tail(outcome.stderr)}`);
  if ("stdout" in outcome && outcome.stdout.trim() !== "") lines.push(`stdout: ${tail(outcome.stdout)}`);
  return lines.join("\n");
}

function tail(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.length <= OUTPUT_TAIL_CHARS ? trimmed : `...${trimmed.slice(-OUTPUT_TAIL_CHARS)}`;
}
