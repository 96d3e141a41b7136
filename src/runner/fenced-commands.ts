import type { CommandRunner } from "../adapters/ports.js";

/**
 * The commands of a term: each starts only if this replica leads at that instant (`leads` reads the lease's deadline
 * on the clock, so a replica resumed after a freeze refuses before any timer has told it it was deposed); otherwise
 * it is not started and ends `aborted`, as a command of a stopping term does.
 */
export function fencedCommands(commands: CommandRunner, leads: () => boolean): CommandRunner {
  return {
    run: (argv, options) => (leads() ? commands.run(argv, options) : Promise.resolve({ kind: "aborted" })),
  };
}
