import { Command, InvalidArgumentError, Option } from "commander";
import { ROLES, type Role } from "../auth/roles.js";
import { newToken, sha256Hex, TOKEN_NAME, tokenConfigLine } from "../auth/tokens.js";

function parseName(text: string): string {
  if (!TOKEN_NAME.test(text)) throw new InvalidArgumentError("must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit");
  return text;
}

/**
 * `kintsugi token create NAME --role ROLE`: prints a new random token on the first line and, on the second, the
 * line to add under `auth.tokens` (or to a tokens file). kintsugi keeps only the token's SHA-256, so this is the one
 * time the token is shown. Nothing is stored or sent anywhere.
 */
export function tokenCommand(out: (text: string) => void, note: (text: string) => void = (text) => void process.stderr.write(text)): Command {
  const cmd = new Command("token").description("make access tokens");
  cmd
    .command("create")
    .description("print a new random token and its config line (add the line under auth.tokens or to the tokens file)")
    .argument("<NAME>", "who or what uses the token (shown as the actor of its requests)", parseName)
    .addOption(new Option("--role <ROLE>", "what the token may do").choices(ROLES).makeOptionMandatory())
    .action((name: string, opts: { role: Role }) => {
      const token = newToken();
      out(`${token}\n${tokenConfigLine({ name, role: opts.role, sha256: sha256Hex(token) })}\n`);
      note("kintsugi: the first line is the token: keep it now, it is not stored. Add the second line under auth.tokens (or to the tokens file).\n");
    });
  return cmd;
}
