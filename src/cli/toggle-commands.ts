import type { Command } from "commander";
import type { CliIo } from "./repair-queue-commands.js";

/** How one persistent on/off switch is read and set over GraphQL. */
export interface Toggle {
  readonly noun: string;
  readonly disabledMeans: string;
  /** A query document whose result has the switch's value under `field`. */
  readonly query: string;
  /** A mutation document taking `$enabled: Boolean!`. */
  readonly mutation: string;
  readonly field: string;
}

/** Adds `enable`, `disable` and `is-enabled` (printing `true` or `false`, as ckecli does) for one switch. */
export function addToggleCommands(cmd: Command, io: CliIo, toggle: Toggle): void {
  const set = (enabled: boolean) => async () => {
    await io.client().request(toggle.mutation, { enabled });
  };
  cmd.command("enable").description(`enable ${toggle.noun}`).action(set(true));
  cmd.command("disable").description(`disable ${toggle.noun}: ${toggle.disabledMeans}`).action(set(false));
  cmd
    .command("is-enabled")
    .description("print true or false")
    .action(async () => {
      const result = await io.client().request<Record<string, boolean>>(toggle.query);
      io.out(`${result[toggle.field]}\n`);
    });
}
