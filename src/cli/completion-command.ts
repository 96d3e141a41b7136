import { Argument, Command } from "commander";
import { VERSION } from "../version.js";
import { bashCompletion } from "./completion-bash.js";
import { completionSpec } from "./completion-spec.js";
import { zshCompletion } from "./completion-zsh.js";

const SHELLS = { bash: bashCompletion, zsh: zshCompletion } as const;

const INSTALL = `
Load it in the current shell:
  bash:  source <(kintsugi completion bash)
  zsh:   source <(kintsugi completion zsh)      (after compinit)
Install it for every new shell:
  bash:  kintsugi completion bash > ~/.local/share/bash-completion/completions/kintsugi
  zsh:   kintsugi completion zsh > "\${fpath[1]}/_kintsugi"`;

/**
 * `kintsugi completion bash|zsh`: prints a completion script made from the program's own command tree (the parent
 * of this command), so it offers exactly the commands, options and choices this kintsugi has.
 */
export function completionCommand(out: (text: string) => void): Command {
  return new Command("completion")
    .description("print a shell completion script for kintsugi's commands and options")
    .addArgument(new Argument("<SHELL>", "the shell").choices(Object.keys(SHELLS)))
    .addHelpText("after", INSTALL)
    .action((shell: keyof typeof SHELLS, _options: unknown, command: Command) => {
      const program = command.parent ?? command;
      out(SHELLS[shell](completionSpec(program), VERSION));
    });
}
