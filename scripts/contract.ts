// Writes the generated lists of docs/contract.md from the code (`npm run contract`). A name the code no longer has
// is a broken contract: the script refuses to drop it unless told to with --drop-removed.
import { readFileSync, writeFileSync } from "node:fs";
import { CONTRACT_SECTIONS, flatNames, publicNamesInCode, renderNames } from "../test/support/public-names.js";
import { CONTRACT_FILE, contractBlocks, replaceContractBlock } from "../test/support/contract-file.js";

const dropRemoved = process.argv.includes("--drop-removed");
let text = readFileSync(CONTRACT_FILE, "utf8");
const code = publicNamesInCode();
const written = contractBlocks(text);
const removed: string[] = [];
for (const section of CONTRACT_SECTIONS) {
  const now = new Set(flatNames(code[section]));
  removed.push(
    ...flatNames(written[section])
      .filter((n) => !now.has(n))
      .map((n) => `${section}: ${n}`),
  );
  text = replaceContractBlock(text, section, renderNames(code[section]));
}
if (removed.length > 0 && !dropRemoved) {
  process.stderr.write(
    `these public names are gone from the code (a breaking change; restore them, or run again with --drop-removed and say so in the release notes):\n${removed.map((n) => `  ${n}\n`).join("")}`,
  );
  process.exit(1);
}
writeFileSync(CONTRACT_FILE, text);
process.stdout.write(`docs/contract.md written${removed.length > 0 ? `, ${removed.length} names dropped` : ""}\n`);
