import { checkDatabaseFile } from "../store/copy/database-check.js";
import { CliError } from "./cli-error.js";
import { checkLines, printed } from "./db-report.js";

/**
 * `kintsugi db check FILE` on a SQLite file: what to print, or a CliError naming the problems. Loaded on demand in a
 * bundle of its own (scripts/build-cli.mjs), without the config's schemas and YAML that only `--config` needs.
 */
export async function checkSqliteFile(file: string): Promise<string> {
  const checked = await checkDatabaseFile(file);
  if (checked.problems.length > 0) throw new CliError(`database ${checked.file} fails its check: ${checked.problems.join("; ")}`);
  return printed([`${checked.file}: ok`, "  integrity ok, foreign keys ok", ...checkLines(checked)]);
}
