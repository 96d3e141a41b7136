import { Command, InvalidArgumentError } from "commander";
import { CONSTRAINT_NAMES } from "../domain/shared/constraints.js";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { CliError } from "./cli-error.js";
import { readTextFile, type CliIo } from "./repair-queue-commands.js";

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

/**
 * The constraints of `ckecli constraints show`'s JSON (cke.Constraints: CKE's five names, integers); a name kintsugi
 * does not know or a value that is not an integer is refused before any is set.
 */
function readConstraintsFile(file: string): Record<string, number> {
  let data: unknown;
  try {
    data = JSON.parse(readTextFile(file));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${file}: not JSON (ckecli constraints show prints JSON): ${(err as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new CliError(`${file}: must be a JSON object of constraints, as ckecli constraints show prints`);
  const problems = Object.entries(data).flatMap(([name, value]) => [
    ...(Object.hasOwn(CONSTRAINT_NAMES, name) ? [] : [`unknown constraint ${JSON.stringify(name)}`]),
    ...(Number.isSafeInteger(value) ? [] : [`${name} must be an integer, got ${JSON.stringify(value)}`]),
  ]);
  if (problems.length > 0) throw new CliError(`${file}: ${problems.join("; ")}; nothing was set`);
  return data as Record<string, number>;
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
    .command("import")
    .description("set every constraint FILE names (the JSON ckecli constraints show prints), then print them all as show does")
    .argument("<FILE>")
    .action(async (file: string) => {
      for (const [name, value] of Object.entries(readConstraintsFile(file))) {
        await io.client().request<Op.SetConstraintMutation>(D.SetConstraint, { name, value });
      }
      const r = await io.client().request<Op.ShowConstraintsQuery>(D.ShowConstraints);
      io.out(ckeJson(toCkeConstraints(r.constraints)));
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
