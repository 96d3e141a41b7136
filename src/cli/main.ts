import { Command, CommanderError, Option } from "commander";
import { ConfigError } from "../config/load-config.js";
import { DatabaseOpenError } from "../store/database.js";
import { StartRefusedError } from "../auth/access-policy.js";
import { VERSION } from "../version.js";
import { alertsCommand } from "./alerts-command.js";
import { autoRepairCommand } from "./auto-repair-commands.js";
import { CliError, DEFAULT_SERVER, KintsugiClient } from "./client.js";
import { constraintsCommand } from "./constraints-commands.js";
import { healthCheckCommand } from "./health-check-commands.js";
import { repairQueueCommand, type CliIo } from "./repair-queue-commands.js";
import { checkConfigCommand, serveCommand } from "./serve-command.js";
import { sabakanCommand } from "./sabakan-commands.js";
import { clusterCommand } from "./cluster-commands.js";
import { tokenCommand } from "./token-command.js";

/** Builds the `kintsugi` command tree. */
export function buildProgram(io: CliIo): Command {
  const program = new Command("kintsugi")
    .description("repairs the machines of a bare-metal Kubernetes data center, next to sabakan")
    .version(VERSION)
    .option("--server <URL>", "the kintsugi server the operator commands talk to", DEFAULT_SERVER)
    .addOption(new Option("--token <TOKEN>", "the token sent to the server (prefer the environment variable: arguments show in ps)").env("KINTSUGI_TOKEN"))
    .exitOverride()
    .showHelpAfterError();
  program.addCommand(serveCommand());
  program.addCommand(checkConfigCommand(io.out));
  program.addCommand(repairQueueCommand(io));
  program.addCommand(autoRepairCommand(io));
  program.addCommand(constraintsCommand(io));
  program.addCommand(healthCheckCommand(io));
  program.addCommand(sabakanCommand(io));
  program.addCommand(clusterCommand(io));
  program.addCommand(alertsCommand());
  program.addCommand(tokenCommand(io.out));
  for (const sub of program.commands) {
    sub.exitOverride();
    for (const leaf of sub.commands) leaf.exitOverride();
  }
  return program;
}

/** Runs the CLI on `argv` (as process.argv) and returns the exit code; errors go to stderr. */
export async function main(argv: readonly string[]): Promise<number> {
  let program: Command | undefined;
  const io: CliIo = {
    out: (text) => process.stdout.write(text),
    client: () => {
      const { server, token } = program?.opts() as { server: string; token?: string };
      return new KintsugiClient(server, token ?? null);
    },
  };
  program = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError || err instanceof ConfigError || err instanceof DatabaseOpenError || err instanceof StartRefusedError) {
      process.stderr.write(`kintsugi: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`kintsugi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
