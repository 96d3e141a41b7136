import { kindWords } from "./completion-bash.js";
import type { Candidate, CompletionSpec, ValueKind } from "./completion-spec.js";

/** A string in single quotes, as zsh reads it. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A candidate as `_describe` takes it: `word:description` (the description on one line). */
const described = (c: Candidate) => quoted(`${c.word.replace(/:/g, "\\:")}:${c.description.replace(/\s+/g, " ").trim()}`);

function caseArms(arms: ReadonlyArray<readonly [string, string]>, fallback: string): string {
  return [...arms.map(([pattern, body]) => `    (${pattern}) ${body} ;;`), `    (*) ${fallback} ;;`].join("\n");
}

/**
 * The zsh completion script for `kintsugi`, made from the program tree (`kintsugi completion zsh`): the same walk
 * of the words as the bash script's, in `__kintsugi_candidates` (which a test calls directly, without a terminal),
 * and `_kintsugi`, which offers its result with descriptions (`_describe`) or file names (`_files`).
 */
export function zshCompletion(spec: CompletionSpec, version: string): string {
  const commands = spec.nodes.filter((n) => n.commands.length > 0).map((n) => [quoted(n.path), `reply=(${n.commands.map(described).join(" ")})`] as const);
  const options = spec.nodes.filter((n) => n.options.length > 1).map((n) => [quoted(n.path), `reply=(${n.options.map(described).join(" ")})`] as const);
  const values = spec.nodes.flatMap((n) => [...n.values].map(([flag, kind]) => [quoted(`${n.path}|${flag}`), `REPLY=${quoted(kindWords(kind))}`] as const));
  const globals = [...spec.globalValues].map(([flag, kind]) => [quoted(flag), `REPLY=${quoted(kindWords(kind))}`] as const);
  const args = spec.nodes.filter((n) => n.args !== null).map((n) => [quoted(n.path), `REPLY=${quoted(kindWords(n.args as ValueKind))}`] as const);
  return `#compdef kintsugi
# zsh completion for kintsugi ${version}, generated from its commands by \`kintsugi completion zsh\`.
# Install it into a folder of $fpath, then start a new shell:
#   kintsugi completion zsh > "\${fpath[1]}/_kintsugi"
# or load it in this shell (after compinit):  source <(kintsugi completion zsh)

# The subcommands of the command at path $1 (its words after "kintsugi"), as word:description in reply.
__kintsugi_commands() {
  case $1 in
${caseArms(commands, "reply=()")}
  esac
}

# The options of the command at path $1, as option:description in reply.
__kintsugi_options() {
  case $1 in
${caseArms(options, "reply=('--help:display help for command')")}
  esac
}

# What option $2 of the command at path $1 takes, in REPLY: "any", "file", "words ..."; "" when it takes no value.
__kintsugi_value() {
  case "$1|$2" in
${caseArms(values, `case $2 in\n${caseArms(globals, "REPLY=''").replace(/^/gm, "    ")}\n    esac`)}
  esac
}

# What the arguments of the command at path $1 are, in REPLY ("" when nothing is offered).
__kintsugi_args() {
  case $1 in
${caseArms(args, "REPLY=''")}
  esac
}

# The candidates for the word at $CURRENT of $words: their kind in REPLY ("words", "file", or "" for none), and
# for "words" the words (with descriptions when they have some) in reply.
__kintsugi_candidates() {
  local path='' word='' kind=''
  local -i i=2
  while (( i < CURRENT )); do
    word=$words[i]
    REPLY=''
    case $word in
      (--*=*) ;;
      (-*) __kintsugi_value "$path" "$word" ;;
      (*)
        __kintsugi_commands "$path"
        if (( \${reply[(I)\${word}:*]} )); then path=\${path:+$path }$word; fi
        ;;
    esac
    if [[ -n $REPLY ]]; then
      i+=1
      if (( i == CURRENT )); then kind=$REPLY; fi
    fi
    i+=1
  done
  reply=()
  if [[ -z $kind ]]; then
    if [[ $words[CURRENT] == -* ]]; then
      __kintsugi_options "$path"
      REPLY=words
      return
    fi
    __kintsugi_commands "$path"
    if (( $#reply )); then
      REPLY=words
      return
    fi
    __kintsugi_args "$path"
    kind=$REPLY
  fi
  case $kind in
    (words\\ *) reply=(\${=kind#words }); REPLY=words ;;
    (file) REPLY=file ;;
    (*) REPLY='' ;;
  esac
}

_kintsugi() {
  local REPLY
  local -a reply
  __kintsugi_candidates
  case $REPLY in
    (file) _files ;;
    (words) _describe -t kintsugi kintsugi reply ;;
  esac
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _kintsugi "$@"
else
  compdef _kintsugi kintsugi
fi
`;
}
