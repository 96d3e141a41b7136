import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../version.js";
import { alertsCommand } from "./alerts-command.js";
import { autoRepairCommand } from "./auto-repair-commands.js";
import { DEFAULT_SERVER, KintsugiClient } from "./client.js";
import { readClientTls, type ClientTlsFiles } from "./client-tls.js";
import { constraintsCommand } from "./constraints-commands.js";
import { healthCheckCommand } from "./health-check-commands.js";
import { machineCommand } from "./machine-commands.js";
import { repairQueueCommand, type CliIo } from "./repair-queue-commands.js";
import { checkConfigCommand, serveCommand } from "./serve-command.js";
import { sabakanCommand } from "./sabakan-commands.js";
import { clusterCommand } from "./cluster-commands.js";
import { tokenCommand } from "./token-command.js";
import { dbCommand } from "./db-commands.js";
import { completionCommand } from "./completion-command.js";
import { replayCommand } from "./replay-command.js";
import { statsCommand } from "./stats-commands.js";

/**
 * Errors that say what the operator must change or wait for (a config, a file, etcd being away, a store that cannot
 * be copied, backed up or restored): printed as one `kintsugi: ...` line each, without a stack. Anything else is
 * unexpected and printed with its stack. Told by their names, which each class sets: the classes belong to the server
 * and the db commands, which load on demand, bundled with their own copies of them (scripts/build-cli.mjs), so an
 * instanceof against any one copy would miss the others.
 */
export const OPERATOR_ERRORS: ReadonlySet<string> = new Set([
  "CliError",
  "ConfigError",
  "DatabaseOpenError",
  "EtcdClientConfigError",
  "StartRefusedError",
  "UnfinishedCopyError",
  "StoreSchemaError",
  "StoreUnavailableError",
  "ListenError",
  "BackupError",
  "SnapshotSourceError",
  "TargetNotEmptyError",
  "CopyFailedError",
]);

/** Whether `err` is one of {@link OPERATOR_ERRORS}. */
function isOperatorError(err: unknown): boolean {
  return err instanceof Error && OPERATOR_ERRORS.has(err.name);
}

/** Builds the `kintsugi` command tree. */
export function buildProgram(io: CliIo): Command {
  const program = new Command("kintsugi")
    .description("repairs the machines of a bare-metal Kubernetes data center, next to sabakan")
    .version(VERSION)
    .addOption(new Option("--server <URL>", "the kintsugi server the operator commands talk to").env("KINTSUGI_SERVER").default(DEFAULT_SERVER))
    .addOption(new Option("--token <TOKEN>", "the token sent to the server (prefer the environment variable: arguments show in ps)").env("KINTSUGI_TOKEN"))
    .addOption(new Option("--ca <FILE>", "PEM CA certificate that signed an https server's certificate (instead of the system's CAs)").env("KINTSUGI_CA"))
    .addOption(new Option("--cert <FILE>", "PEM client certificate, for a server with tls.client_ca_file").env("KINTSUGI_CERT"))
    .addOption(new Option("--key <FILE>", "PEM private key of --cert").env("KINTSUGI_KEY"))
    .exitOverride()
    .showHelpAfterError();
  program.addCommand(serveCommand());
  program.addCommand(checkConfigCommand(io.out));
  program.addCommand(repairQueueCommand(io));
  program.addCommand(autoRepairCommand(io));
  program.addCommand(constraintsCommand(io));
  program.addCommand(healthCheckCommand(io));
  program.addCommand(machineCommand(io));
  program.addCommand(sabakanCommand(io));
  program.addCommand(clusterCommand(io));
  program.addCommand(replayCommand(io));
  program.addCommand(statsCommand(io));
  program.addCommand(alertsCommand());
  program.addCommand(tokenCommand(io.out, io.note));
  program.addCommand(dbCommand(io.out, io.note, io.terminal === true));
  program.addCommand(completionCommand(io.out));
  for (const sub of program.commands) {
    sub.exitOverride();
    for (const leaf of sub.commands) leaf.exitOverride();
  }
  return program;
}

/** Where the CLI writes its output and its errors: the process's stdout and stderr, or a test's buffers. */
export interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Whether `err` is a terminal (a progress line is then rewritten in place); default no. */
  readonly terminal?: boolean;
}

const PROCESS_OUTPUT: CliOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get terminal() {
    return process.stderr.isTTY === true;
  },
};

/**
 * Sends commander's own output (help, version, usage errors) of every command in the tree to `output`, laid out as
 * on a pipe (80 columns, no colours), so a command run in-process prints what the binary prints to a pipe.
 */
function redirectOutput(command: Command, output: CliOutput): void {
  command.configureOutput({
    writeOut: output.out,
    writeErr: output.err,
    getOutHelpWidth: () => 80,
    getErrHelpWidth: () => 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  });
  for (const sub of command.commands) redirectOutput(sub, output);
}

/**
 * Runs the CLI on `argv` (as process.argv) and returns the exit code; errors go to stderr. `output` other than the
 * process's streams is the seam that lets tests drive the commands in-process.
 */
export async function main(argv: readonly string[], output: CliOutput = PROCESS_OUTPUT): Promise<number> {
  const io: CliIo = {
    out: output.out,
    note: output.err,
    terminal: output.terminal === true,
    client: () => {
      const { server, token, ...files } = program.opts() as { server: string; token?: string } & ClientTlsFiles;
      return new KintsugiClient(server, token ?? null, readClientTls(files));
    },
  };
  const program = buildProgram(io);
  if (output !== PROCESS_OUTPUT) redirectOutput(program, output);
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (isOperatorError(err)) {
      // One line per problem (a config with three problems is three lines), each prefixed, so every line says whose.
      output.err(
        `${(err as Error).message
          .split("\n")
          .map((line) => `kintsugi: ${line}\n`)
          .join("")}`,
      );
      return 1;
    }
    output.err(`kintsugi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
