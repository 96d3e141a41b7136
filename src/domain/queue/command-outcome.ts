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
