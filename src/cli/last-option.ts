import { InvalidArgumentError, type Command } from "commander";

/** Parses a count argument: a non-negative decimal integer. */
export function parseCount(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`${JSON.stringify(text)} is not a count`);
  return Number(text);
}

/** Adds `--last <N>` (default 20) to a command that lists the newest of what the server keeps (`kept` of them). */
export function addLastOption(cmd: Command, kept: string): Command {
  return cmd.option("--last <N>", `how many of the newest (the server keeps ${kept})`, parseCount, 20);
}
