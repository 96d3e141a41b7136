import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The programs that bind a command to the replica that runs it: a POSIX shell that starts the lifeline watcher and
 * execs the command, and coreutils' (or busybox's) `timeout`, the backstop that kills a command past its deadline
 * even when the replica cannot (frozen by SIGSTOP, stuck). `timeout` null: no backstop, only the lifeline.
 */
export interface CommandLauncher {
  readonly shell: string;
  readonly timeout: string | null;
}

/** The descriptor the command's lifeline is on in the launcher (never passed on to the command itself). */
export const LIFELINE_FD = 3;

/**
 * The launcher's script: `$1` is the path of `timeout`, `$2` the backstop in whole seconds (0: none), the rest is
 * the command's argv. A watcher,
 * forked twice so that it is nobody's child and in the command's process group, ignores SIGTERM (the runner's kill
 * of the group must not take it before the command is gone) and reads the lifeline: a line means the runner has seen
 * the command end and lets go; end of file without one means the runner's process died (the kernel closes its end
 * whatever killed it), and the watcher SIGKILLs the whole group, grandchildren included. The command is exec'd in
 * the shell's place, so it keeps the pid (and leads the group) that the runner signals and reaps: its exit code
 * and signal are its own.
 */
const SCRIPT = [
  "t=$1; d=$2; shift 2",
  `( ( trap '' TERM; exec </dev/null >/dev/null 2>&1; if read -r _ <&${LIFELINE_FD}; then exit 0; fi; kill -s KILL 0 ) & )`,
  `if [ "$d" = 0 ]; then exec "$@" ${LIFELINE_FD}<&-; fi`,
  `exec "$t" -s KILL "$d" "$@" ${LIFELINE_FD}<&-`,
].join("\n");

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where `name` would be found as execvp finds it: itself when it has a slash, else the first executable file of
 * that name on `path` (an empty entry is the working directory). null when there is none.
 */
export function resolveExecutable(name: string, path: string | undefined): string | null {
  if (name.includes("/")) return isExecutableFile(name) ? name : null;
  for (const dir of (path ?? "").split(delimiter)) {
    const candidate = join(dir === "" ? "." : dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** The launcher on this machine, or why there is none: `/bin/sh` is needed; `timeout` is looked up on PATH. */
export function findLauncher(path: string | undefined = process.env.PATH): { launcher: CommandLauncher | null; missing: string[] } {
  const shell = isExecutableFile("/bin/sh") ? "/bin/sh" : null;
  const timeout = resolveExecutable("timeout", path);
  const missing = [...(shell === null ? ["/bin/sh"] : []), ...(timeout === null ? ["timeout (coreutils)"] : [])];
  return { launcher: shell === null ? null : { shell, timeout }, missing };
}

/**
 * How to start `argv` through `launcher` with a backstop of `backstopSeconds` (0: none; also none without
 * `timeout`): the program and its arguments. The command's own argv reaches it verbatim (positional parameters are
 * never parsed by the shell).
 */
export function launchCommand(launcher: CommandLauncher, argv: readonly string[], backstopSeconds: number): { command: string; args: string[] } {
  const backstop = launcher.timeout === null || !(backstopSeconds > 0) ? 0 : Math.ceil(backstopSeconds);
  return { command: launcher.shell, args: ["-c", SCRIPT, "kintsugi-command", launcher.timeout ?? "", String(backstop), ...argv] };
}
