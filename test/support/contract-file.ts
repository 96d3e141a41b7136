// The generated lists of docs/contract.md: each section sits between `<!-- contract:NAME -->` and
// `<!-- /contract:NAME -->`, one list item a line (see renderNames in public-names.ts).
import { fileURLToPath } from "node:url";
import { CONTRACT_SECTIONS, parseNames, type ContractSection, type NameTree } from "./public-names.js";

export const CONTRACT_FILE = fileURLToPath(new URL("../../docs/contract.md", import.meta.url));

const blockOf = (section: ContractSection) => new RegExp(`(<!-- contract:${section} -->\\n)([\\s\\S]*?)(<!-- /contract:${section} -->)`);

/** The names each generated section of the contract lists; throws naming a section that is missing. */
export function contractBlocks(text: string): Record<ContractSection, NameTree> {
  const out = {} as Record<ContractSection, NameTree>;
  for (const section of CONTRACT_SECTIONS) {
    const m = blockOf(section).exec(text);
    if (!m) throw new Error(`docs/contract.md has no section <!-- contract:${section} -->`);
    out[section] = parseNames(m[2]!.split("\n").filter((line) => line.trim() !== ""));
  }
  return out;
}

/** `text` with the list of `section` replaced by `lines`. */
export function replaceContractBlock(text: string, section: ContractSection, lines: readonly string[]): string {
  if (!blockOf(section).test(text)) throw new Error(`docs/contract.md has no section <!-- contract:${section} -->`);
  return text.replace(blockOf(section), (_all, open: string, _body: string, close: string) => `${open}\n${lines.join("\n")}\n\n${close}`);
}
