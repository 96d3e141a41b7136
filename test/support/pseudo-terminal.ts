import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { KINTSUGI_BIN } from "./run-cli.js";

/** Why the pseudo-terminal tests skip here, or false when `script` (util-linux) is there to give them one. */
export const NO_SCRIPT: string | false = existsSync("/usr/bin/script") ? false : "`script` (util-linux) not found";

/** `kintsugi ARGS` on a pseudo-terminal of `columns` x 40 (`script`, as an operator's shell would give it). */
export function onTerminal(args: string[], columns: number) {
  const command = [process.execPath, KINTSUGI_BIN, ...args].map((a) => `'${a}'`).join(" ");
  const child = spawn("script", ["-qfec", `stty cols ${columns} rows 40; exec ${command}`, "/dev/null"]);
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  return { child, out: () => stdout };
}

/** The last screen drawn on the terminal, as lines (the pseudo-terminal ends lines with \r\n). */
export const lastScreen = (out: string) => (out.split("\x1b[2J").at(-1) ?? "").split(/\r?\n/);
