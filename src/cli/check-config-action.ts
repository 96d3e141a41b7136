import { ConfigError } from "../config/load-config.js";
import { runStartChecks, type StartEnvironment } from "../wiring/start-checks.js";

/**
 * `kintsugi check-config FILE`: every check `serve` makes before it opens anything, in `env`; warnings to `out`, then
 * "ok", or a ConfigError naming every problem. Loaded on demand, bundled with the config's schemas (scripts/build-cli.mjs).
 */
export async function checkConfig(file: string, env: StartEnvironment, out: (text: string) => void): Promise<void> {
  const report = await runStartChecks(file, env);
  for (const w of report.warnings) out(`${file}: warning: ${w.path}: ${w.message}\n`);
  if (report.loaded === null) throw new ConfigError(file, report.problems);
  out(`${file}: ok\n`);
}
