import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Mutant } from "./mutant-catalogue.js";

/** A mutant whose text is no longer in its file exactly once: the code moved, and the mutant must be written again. */
export class StaleMutantError extends Error {}

/** How many times `find` occurs in `text` (without overlaps). */
export function occurrences(text: string, find: string): number {
  if (find === "") return 0;
  let count = 0;
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + find.length)) count++;
  return count;
}

/** `text` with the mutation applied; throws StaleMutantError unless its text occurs exactly once. */
export function mutated(mutant: Mutant, text: string): string {
  const n = occurrences(text, mutant.find);
  if (n !== 1)
    throw new StaleMutantError(
      `mutant ${mutant.name} no longer applies: ${mutant.file} has ${n === 0 ? "no" : n} occurrence${n === 1 ? "" : "s"} of its text ${JSON.stringify(mutant.find)} (the rule moved: write the mutant again)`,
    );
  return text.replace(mutant.find, () => mutant.replace);
}

/**
 * A scratch copy of the tree at `root` (src/, package.json, tsconfig.json; `nodeModules` linked) under `scratch`,
 * with `mutant` applied there: the working tree is never touched. Returns the copy's directory.
 */
export function mutantTree(root: string, mutant: Mutant | null, scratch: string, nodeModules = join(root, "node_modules")): string {
  const dir = mkdtempSync(join(scratch, `kintsugi-mutant-${mutant?.name ?? "none"}-`));
  cpSync(join(root, "src"), join(dir, "src"), { recursive: true });
  for (const file of ["package.json", "tsconfig.json"]) if (existsSync(join(root, file))) cpSync(join(root, file), join(dir, file));
  symlinkSync(nodeModules, join(dir, "node_modules"), "dir");
  if (mutant) {
    const path = join(dir, mutant.file);
    if (!existsSync(path)) {
      rmSync(dir, { recursive: true, force: true });
      throw new StaleMutantError(`mutant ${mutant.name} no longer applies: ${mutant.file} does not exist (the rule moved: write the mutant again)`);
    }
    try {
      writeFileSync(path, mutated(mutant, readFileSync(path, "utf8")));
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
  return dir;
}
