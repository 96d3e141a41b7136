import type { Command, Option } from "commander";

/** What a shell may offer for a value: nothing in particular, file names, or one of some words. */
export type ValueKind = { readonly kind: "any" } | { readonly kind: "file" } | { readonly kind: "words"; readonly words: readonly string[] };

/** A word the shell offers, with what it does (zsh shows it). */
export interface Candidate {
  readonly word: string;
  readonly description: string;
}

/** One command of the tree, by its words after `kintsugi` ("" for the program itself). */
export interface CompletionNode {
  readonly path: string;
  readonly commands: readonly Candidate[];
  /** Its options, `--help` included; the program's own options only at the program. */
  readonly options: readonly Candidate[];
  /** The options that take a value, by every spelling (`--server`, `-s`), with what their value is. */
  readonly values: ReadonlyMap<string, ValueKind>;
  /** What its positional arguments are; null when it takes none worth offering. */
  readonly args: ValueKind | null;
}

/** What the completion scripts are made of: every command, and the options that take a value anywhere. */
export interface CompletionSpec {
  readonly nodes: readonly CompletionNode[];
  /** The program's own options that take a value: they may appear after any subcommand. */
  readonly globalValues: ReadonlyMap<string, ValueKind>;
}

const HELP_OPTION: Candidate = { word: "--help", description: "display help for command" };

/** A word safe to put unquoted into a shell script and a zsh pattern: what commands, options and choices are. */
const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

function plain(word: string, what: string): string {
  if (!PLAIN_WORD.test(word)) throw new Error(`completion: ${what} ${JSON.stringify(word)} is not a plain word`);
  return word;
}

/** A value named FILE (`--config <FILE>`, `<FILE>`) is a file name; one with choices is one of them. */
function valueKind(name: string, choices: readonly string[] | undefined): ValueKind {
  if (choices && choices.length > 0) return { kind: "words", words: choices.map((c) => plain(c, `choice of ${name}`)) };
  return /FILE/.test(name) ? { kind: "file" } : { kind: "any" };
}

function optionValues(options: readonly Option[]): Map<string, ValueKind> {
  const values = new Map<string, ValueKind>();
  for (const option of options) {
    if (!option.required && !option.optional) continue;
    const kind = valueKind(option.flags, option.argChoices);
    for (const flag of [option.long, option.short]) {
      if (flag === undefined) continue;
      plain(flag.replace(/^-+/, ""), "option");
      values.set(flag, kind);
    }
  }
  return values;
}

function nodeOf(command: Command, path: string, isProgram: boolean): CompletionNode {
  const shown = command.options.filter((o) => !o.hidden && o.long);
  const commands = command.commands.map((sub) => ({ word: plain(sub.name(), "command"), description: sub.description() }));
  const args = command.registeredArguments.map((a) => valueKind(a.name(), a.argChoices)).find((kind) => kind.kind !== "any") ?? null;
  return {
    path,
    // Commander answers `help [command]` wherever there are subcommands.
    commands: commands.length > 0 ? [...commands, { word: "help", description: "display help for command" }] : [],
    options: [...shown.map((o) => ({ word: o.long as string, description: o.description })), HELP_OPTION],
    values: isProgram ? new Map() : optionValues(command.options),
    args,
  };
}

/**
 * Reads the commander program tree into what the shell completion scripts offer, so that they follow the commands
 * as they change: every command's subcommands, options (hidden ones left out) and the values of options and
 * arguments (choices, and file names where the value is named FILE).
 */
export function completionSpec(program: Command): CompletionSpec {
  const nodes: CompletionNode[] = [];
  const walk = (command: Command, words: readonly string[]) => {
    const node = nodeOf(command, words.join(" "), words.length === 0);
    nodes.push(node);
    // `kintsugi [COMMAND...] help COMMAND` takes the name of one of its siblings.
    if (node.commands.length > 0) {
      const siblings = node.commands.map((c) => c.word).filter((word) => word !== "help");
      nodes.push({ path: [...words, "help"].join(" "), commands: [], options: [HELP_OPTION], values: new Map(), args: { kind: "words", words: siblings } });
    }
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return { nodes, globalValues: optionValues(program.options) };
}
