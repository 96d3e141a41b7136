import { Command, InvalidArgumentError } from "commander";
import { CONSTRAINT_NAMES } from "../domain/shared/constraints.js";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";

function parseInteger(text: string): number {
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not an integer`);
  }
  return Number(text);
}

/** Constraints keyed by CKE's kebab-case names, as `ckecli constraints show` prints them: CKE's five in CKE's order first. */
export function toCkeConstraints(c: Op.ConstraintsFieldsFragment): Record<string, number> {
  return Object.fromEntries(Object.entries(CONSTRAINT_NAMES).map(([name, key]) => [name, c[key]]));
}

/** `kintsugi constraints ...`, as `ckecli constraints`. */
export function constraintsCommand(io: CliIo): Command {
  const cmd = new Command("constraints").alias("cstr").description("show and set the safety constraints (as ckecli constraints)");

  cmd
    .command("set")
    .description(`set a constraint: ${Object.keys(CONSTRAINT_NAMES).join(", ")}`)
    .argument("<NAME>")
    .argument("<VALUE>", "an integer", parseInteger)
    .action(async (name: string, value: number) => {
      await io.client().request<Op.SetConstraintMutation>(D.SetConstraint, { name, value });
    });

  cmd
    .command("show")
    .description("print the constraints as JSON")
    .action(async () => {
      const r = await io.client().request<Op.ShowConstraintsQuery>(D.ShowConstraints);
      io.out(ckeJson(toCkeConstraints(r.constraints)));
    });

  return cmd;
}
