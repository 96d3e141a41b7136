import { Command } from "commander";
import { DEFAULT_CONFIG } from "../config/kintsugi-config.js";
import { ConfigError, type LoadedConfig } from "../config/load-config.js";
import { loadConfigForStart, runStartChecks, type StartEnvironment } from "../wiring/start-checks.js";
import { startKintsugi } from "../main.js";

// Refused before anything is opened, with every problem the start checks find (check-config runs the same).
async function loadOrDefault(path: string | undefined): Promise<LoadedConfig> {
  return path === undefined ? { config: DEFAULT_CONFIG, warnings: [] } : loadConfigForStart(path, process.env);
}

/** `kintsugi serve [--config FILE]`: runs the server until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return new Command("serve")
    .description("run the kintsugi server (embedded defaults: 127.0.0.1:10180, database ./data/kintsugi.db)")
    .option("--config <FILE>", "YAML config file (every key optional)")
    .action(async (opts: { config?: string }) => {
      const { config, warnings } = await loadOrDefault(opts.config);
      // Handlers go in before the server starts, so a signal during start-up still shuts down cleanly.
      const stopRequested = new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve();
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      const running = await startKintsugi(config, { configWarnings: warnings });
      await stopRequested;
      await running.close();
    });
}

/**
 * `kintsugi check-config FILE`: runs every check `serve` makes before it opens anything (see START_CHECKS: the
 * file, its schema, the tokens, TLS, etcd TLS and kubeconfig files it names, in-cluster credentials, the commands'
 * programs, the database path), in this environment, without starting anything. Warnings go to stdout; every
 * problem goes to stderr, one per line, and the exit code is 1; "ok" only when serve would start.
 */
export function checkConfigCommand(out: (text: string) => void, env: StartEnvironment = process.env): Command {
  return new Command("check-config")
    .description("run every check serve makes of a config file before it starts, without starting anything")
    .argument("<FILE>")
    .action(async (file: string) => {
      const report = await runStartChecks(file, env);
      for (const w of report.warnings) out(`${file}: warning: ${w.path}: ${w.message}\n`);
      if (report.loaded === null) throw new ConfigError(file, report.problems);
      out(`${file}: ok\n`);
    });
}
