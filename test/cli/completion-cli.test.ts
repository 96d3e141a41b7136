import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/main.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";

const ZSH = ["/usr/bin/zsh", "/bin/zsh"].find((path) => existsSync(path));
const NO_ZSH = ZSH ? false : "zsh not found (Debian's zsh package): its completion script is checked only for its structure";

/** A shell word in single quotes. */
const q = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs `shell ARGS` in `cwd`; resolves with stdout, fails with stderr. */
function run(shell: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(shell, args, { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${shell}: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Every command of the tree: its words after `kintsugi`, subcommands and long options (as commander has them). */
function everyCommand(command: Command, words: string[] = []): Array<{ words: string[]; commands: string[]; options: string[] }> {
  const own = {
    words,
    commands: command.commands.map((c) => c.name()),
    options: command.options.filter((o) => !o.hidden && o.long).map((o) => o.long as string),
  };
  return [own, ...command.commands.flatMap((sub) => everyCommand(sub, [...words, sub.name()]))];
}

/** What is typed before Tab: the words, the last one being completed (possibly ""). */
type Typed = readonly string[];

// The candidates after filtering by what is typed, as each shell shows them.
const CASES: Array<[string, Typed, string[]]> = [
  ["the commands by prefix", ["kintsugi", "c"], ["check-config", "constraints", "cluster", "completion"]],
  ["subcommands by prefix", ["kintsugi", "repair-queue", "w"], ["wait", "watch"]],
  ["after a program option and its value", ["kintsugi", "--server", "http://127.0.0.1:10180", "repair-queue", "l"], ["list"]],
  ["after a program option given after the command", ["kintsugi", "repair-queue", "--token", "repair-queue", "w"], ["wait", "watch"]],
  ["a command's options", ["kintsugi", "repair-queue", "wait", "--t"], ["--timeout-seconds", "--timeout"]],
  ["the program's options", ["kintsugi", "--s"], ["--server"]],
  ["an option's choices", ["kintsugi", "alerts", "--format", ""], ["slack", "mattermost", "json"]],
  ["a role", ["kintsugi", "token", "create", "ci-bot", "--role", "o"], ["operator"]],
  ["an argument's choices", ["kintsugi", "completion", ""], ["bash", "zsh"]],
  ["help's commands", ["kintsugi", "repair-queue", "help", "d"], ["delete", "delete-finished", "delete-unfinished", "disable"]],
  ["nothing for a free value", ["kintsugi", "repair-queue", "wait", "--timeout-seconds", ""], []],
  ["nothing for an index", ["kintsugi", "repair-queue", "watch", ""], []],
  ["file names for a FILE option", ["kintsugi", "serve", "--config", "k"], ["k.yaml"]],
  ["file names for a FILE argument", ["kintsugi", "sabakan", "set-template", "k"], ["k.yaml"]],
];

describe("kintsugi completion (the scripts, printed in-process, run by the real shells)", () => {
  const dir = tempDir();
  let bashScript: string;
  let zshScript: string;
  const program = buildProgram({
    out: () => undefined,
    client: () => {
      throw new Error("not used");
    },
  });
  // Completion is asked for every command of the tree: the scripts follow the commands as they change.
  const tree = everyCommand(program);
  before(async () => {
    for (const shell of ["bash", "zsh"]) {
      const res = await runCliInProcess(["completion", shell]);
      assert.equal(res.code, 0, res.stderr);
      writeFileSync(join(dir.path, `completion.${shell}`), res.stdout);
    }
    bashScript = join(dir.path, "completion.bash");
    zshScript = join(dir.path, "completion.zsh");
    writeFileSync(join(dir.path, "k.yaml"), "");
    mkdirSync(join(dir.path, "state"));
  });
  after(() => dir.remove());

  /** Each typed line's candidates, one bash process for all (COMP_WORDS and COMP_CWORD as bash's completion sets them). */
  async function bashCandidates(typed: readonly Typed[]): Promise<string[][]> {
    const calls = typed.map(
      (words) => `COMP_WORDS=(${words.map(q).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _kintsugi; printf '%s\\n' "\${COMPREPLY[*]}"`,
    );
    const out = await run("bash", ["--norc", "--noprofile", "-c", `source ${q(bashScript)} || exit 1\n${calls.join("\n")}`], dir.path);
    return out
      .split("\n")
      .slice(0, typed.length)
      .map((line) => (line === "" ? [] : line.split(" ")));
  }

  it("bash: the script registers _kintsugi for kintsugi", async () => {
    assert.equal(
      (await run("bash", ["--norc", "--noprofile", "-c", `source ${q(bashScript)} && complete -p kintsugi`], dir.path)).trim(),
      "complete -F _kintsugi kintsugi",
    );
  });

  it("bash: offers what is typed's candidates", async () => {
    const got = await bashCandidates(CASES.map(([, typed]) => typed));
    CASES.forEach(([name, typed, want], i) => assert.deepEqual(got[i], want, `${name}: ${typed.join(" ")}`));
  });

  it("bash: offers every command's subcommands and options, as the program tree has them", async () => {
    const typed = tree.flatMap(({ words }) => [
      ["kintsugi", ...words, ""],
      ["kintsugi", ...words, "--"],
    ]);
    const got = await bashCandidates(typed);
    tree.forEach(({ words, commands, options }, i) => {
      const path = `kintsugi ${words.join(" ")}`;
      const expectedCommands = commands.length > 0 ? [...commands, "help"] : [];
      if (commands.length > 0) assert.deepEqual(got[2 * i], expectedCommands, `${path} <Tab>`);
      assert.deepEqual(got[2 * i + 1], [...options, "--help"], `${path} --<Tab>`);
    });
  });

  it("zsh: the script is a #compdef function file that registers itself", () => {
    const text = readFileSync(zshScript, "utf8");
    assert.match(text, /^#compdef kintsugi\n/);
    assert.match(text, /compdef _kintsugi kintsugi\n/);
    for (const { words, commands } of tree) for (const command of commands) assert.ok(text.includes(`'${command}:`), `kintsugi ${words.join(" ")} ${command}`);
  });

  it("zsh: the script's syntax is valid", { skip: NO_ZSH }, async () => {
    assert.equal(await run(ZSH as string, ["-n", zshScript], dir.path), "");
  });

  /** Each typed line's candidates in zsh (the script's own walk, then filtered by prefix as zsh's matcher does). */
  async function zshCandidates(typed: readonly Typed[]): Promise<Array<{ kind: string; words: string[] }>> {
    const calls = typed.map(
      (words) =>
        `words=(${words.map(q).join(" ")}); CURRENT=${words.length}; REPLY=''; reply=(); __kintsugi_candidates; print -r -- "$REPLY|\${(j: :)\${(@)reply%%:*}}"`,
    );
    const out = await run(
      ZSH as string,
      ["-f", "-c", `autoload -Uz compinit && compinit -u -D\nsource ${q(zshScript)} || exit 1\n${calls.join("\n")}`],
      dir.path,
    );
    return out
      .split("\n")
      .slice(0, typed.length)
      .map((line, i) => {
        const [kind = "", list = ""] = line.split("|");
        const prefix = typed[i]?.at(-1) ?? "";
        return { kind, words: list.split(" ").filter((w) => w !== "" && w.startsWith(prefix)) };
      });
  }

  it("zsh: offers what is typed's candidates", { skip: NO_ZSH }, async () => {
    const got = await zshCandidates(CASES.map(([, typed]) => typed));
    CASES.forEach(([name, typed, want], i) => {
      const shown = got[i]?.kind === "file" ? ["k.yaml", "state"].filter((f) => f.startsWith(typed.at(-1) ?? "")) : (got[i]?.words ?? []);
      assert.deepEqual(shown, want, `${name}: ${typed.join(" ")} (${got[i]?.kind})`);
    });
  });

  it("zsh: _kintsugi hands words with descriptions to _describe and file names to _files", { skip: NO_ZSH }, async () => {
    // _describe and _files work only inside a completion widget; stand-ins show what _kintsugi gives them.
    const stubs = `_describe() { print -r -- "describe $1 $2 $3: \${(P)4[1]}" }\n_files() { print -r -- files }`;
    const call = (words: string[]) => `words=(${words.map(q).join(" ")}); CURRENT=${words.length}; _kintsugi`;
    const out = await run(
      ZSH as string,
      [
        "-f",
        "-c",
        `autoload -Uz compinit && compinit -u -D\nsource ${q(zshScript)} || exit 1\n${stubs}\n${call(["kintsugi", "repair-queue", "w"])}\n${call(["kintsugi", "serve", "--config", ""])}`,
      ],
      dir.path,
    );
    assert.deepEqual(out.trim().split("\n"), ["describe -t kintsugi kintsugi: add:append a repair entry; prints nothing, as ckecli", "files"]);
  });
});
