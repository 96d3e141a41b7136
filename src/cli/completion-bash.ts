import type { CompletionSpec, ValueKind } from "./completion-spec.js";

/** A value kind as the script spells it: `any`, `file` or `words W1 W2 ...` (plain words, see completion-spec). */
export function kindWords(kind: ValueKind): string {
  return kind.kind === "words" ? `words ${kind.words.join(" ")}` : kind.kind;
}

/** `case` arms, one per line, with a catch-all that sets nothing. */
function caseArms(arms: ReadonlyArray<readonly [string, string]>, fallback: string): string {
  return [...arms.map(([pattern, value]) => `    ${pattern}) v="${value}" ;;`), `    *) ${fallback} ;;`].join("\n");
}

/**
 * The bash completion script for `kintsugi`, made from the program tree (`kintsugi completion bash`). `_kintsugi`
 * walks the words before the cursor (a command word extends the path, an option that takes a value skips it) and
 * offers the subcommands, the options (after `-`), an option's choices or file names, or an argument's.
 */
export function bashCompletion(spec: CompletionSpec, version: string): string {
  const commands = spec.nodes.filter((n) => n.commands.length > 0).map((n) => [`"${n.path}"`, n.commands.map((c) => c.word).join(" ")] as const);
  const options = spec.nodes.filter((n) => n.options.length > 1).map((n) => [`"${n.path}"`, n.options.map((o) => o.word).join(" ")] as const);
  const values = spec.nodes.flatMap((n) => [...n.values].map(([flag, kind]) => [`"${n.path}|${flag}"`, kindWords(kind)] as const));
  const globals = [...spec.globalValues].map(([flag, kind]) => [flag, kindWords(kind)] as const);
  const args = spec.nodes.filter((n) => n.args !== null).map((n) => [`"${n.path}"`, kindWords(n.args as ValueKind)] as const);
  return `# bash completion for kintsugi ${version}, generated from its commands by \`kintsugi completion bash\`.
# Load it in this shell:   source <(kintsugi completion bash)
# or for every new shell:  kintsugi completion bash > ~/.local/share/bash-completion/completions/kintsugi
#                          (system-wide: /usr/share/bash-completion/completions/kintsugi)

# The subcommands of the command at path $1 (its words after "kintsugi"), in v.
__kintsugi_commands() {
  case "$1" in
${caseArms(commands, 'v=""')}
  esac
}

# The options of the command at path $1, in v.
__kintsugi_options() {
  case "$1" in
${caseArms(options, 'v="--help"')}
  esac
}

# What option $2 of the command at path $1 takes, in v: "any", "file", "words ..."; "" when it takes no value.
__kintsugi_value() {
  case "$1|$2" in
${caseArms(values, `case "$2" in\n${caseArms(globals, 'v=""').replace(/^/gm, "    ")}\n    esac`)}
  esac
}

# What the arguments of the command at path $1 are, in v ("" when nothing is offered).
__kintsugi_args() {
  case "$1" in
${caseArms(args, 'v=""')}
  esac
}

_kintsugi() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word="" kind="" v="" i=1
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word="\${COMP_WORDS[i]}"
    v=""
    case "$word" in
      --*=*) ;;
      -*) __kintsugi_value "$path" "$word" ;;
      *)
        __kintsugi_commands "$path"
        case " $v " in *" $word "*) path="\${path:+$path }$word" ;; esac
        v=""
        ;;
    esac
    if [ -n "$v" ]; then
      i=$((i + 1))
      if [ "$i" -eq "$COMP_CWORD" ]; then kind="$v"; fi
    fi
    i=$((i + 1))
  done
  if [ -z "$kind" ]; then
    if [[ "$cur" == -* ]]; then
      __kintsugi_options "$path"
      kind="words $v"
    else
      __kintsugi_commands "$path"
      if [ -n "$v" ]; then kind="words $v"; else __kintsugi_args "$path"; kind="$v"; fi
    fi
  fi
  # One candidate a line, read without mapfile: macOS still ships bash 3.2.
  COMPREPLY=()
  case "$kind" in
    file)
      compopt -o filenames 2>/dev/null
      while IFS= read -r word; do COMPREPLY+=("$word"); done < <(compgen -f -- "$cur")
      ;;
    "words "*) while IFS= read -r word; do COMPREPLY+=("$word"); done < <(compgen -W "\${kind#words }" -- "$cur") ;;
  esac
}

complete -F _kintsugi kintsugi
`;
}
