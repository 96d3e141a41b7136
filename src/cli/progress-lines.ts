import { describeProgress, type ProgressReport } from "../support/progress.js";

/**
 * Writes a long command's progress about `what` (`items`) to `write` (stderr, beside the result on stdout): on a
 * terminal one line rewritten in place and ended when the work is; elsewhere (a log, a pipe) a plain line each time.
 */
export function progressLines(label: string, what: string, write: (text: string) => void, terminal: boolean): (p: ProgressReport) => void {
  return (p) => {
    const line = `${label}: ${describeProgress(what, p)}`;
    write(terminal ? `\r\x1b[K${line}${p.finished ? "\n" : ""}` : `${line}\n`);
  };
}
