import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { ConfigProblem } from "./load-config.js";

/** The argv keys of an operation of CKE's `repair` section, and of each of its steps. */
const OPERATION_COMMANDS = ["health_check_command", "success_command", "diagnostics_command"] as const;
const STEP_COMMANDS = ["repair_command"] as const;

// When PATH is unset, execvp (which libuv's spawn follows) searches glibc's default path.
const DEFAULT_PATH = "/bin:/usr/bin";

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The program of every command of the `repair` section (its argv[0]), with its key path; a malformed one is the schema's. */
function programs(data: Record<string, unknown>): Array<{ path: string; program: string }> {
  const found: Array<{ path: string; program: string }> = [];
  const take = (owner: Record<string, unknown>, key: string, path: string) => {
    const program = listOf(owner[key])[0];
    if (typeof program === "string" && program !== "") found.push({ path: `${path}.${key}`, program });
  };
  const repair = data["repair"];
  if (!isMapping(repair)) return found;
  listOf(repair["repair_procedures"]).forEach((procedure, i) => {
    if (!isMapping(procedure)) return;
    listOf(procedure["repair_operations"]).forEach((operation, j) => {
      if (!isMapping(operation)) return;
      const operationPath = `repair.repair_procedures[${i}].repair_operations[${j}]`;
      listOf(operation["repair_steps"]).forEach((step, k) => {
        if (isMapping(step)) for (const key of STEP_COMMANDS) take(step, key, `${operationPath}.repair_steps[${k}]`);
      });
      for (const key of OPERATION_COMMANDS) take(operation, key, operationPath);
    });
  });
  return found;
}

/** Why `file` cannot be run by this process, or null when it can: a regular file it may execute. */
function cannotRun(file: string): string | null {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? "no such file"
      : code === "EACCES"
        ? "permission denied"
        : code === "ENOTDIR"
          ? "a part of its path is not a directory"
          : (code ?? "cannot be read");
  }
  if (!isFile) return "is not a regular file";
  try {
    accessSync(file, constants.X_OK);
    return null;
  } catch {
    return "is not executable (no execute permission for this user)";
  }
}

/**
 * Refuses a command kintsugi could never run, as the process that runs it finds programs (spawn without a shell):
 * a program named with a `/` is that file (relative to the working directory), which must be a regular file this
 * user may execute; a bare name must be such a file in a directory of `PATH`. Each command is named by its key path.
 * CKE checks none of this (a missing command fails each repair, later); kintsugi says so before it starts.
 */
export function commandFileProblems(data: Record<string, unknown>, path: string | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const command of programs(data)) {
    const name = JSON.stringify(command.program);
    if (command.program.includes("/")) {
      const why = cannotRun(resolve(command.program));
      if (why !== null) problems.push({ path: command.path, message: `${name}: ${why}` });
      continue;
    }
    // An empty entry of PATH is the working directory, as for execvp.
    const found = (path ?? DEFAULT_PATH).split(delimiter).some((dir) => cannotRun(join(dir === "" ? "." : dir, command.program)) === null);
    if (!found) problems.push({ path: command.path, message: `${name}: no executable of that name in any directory of PATH` });
  }
  return problems;
}
