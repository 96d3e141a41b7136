import { Command } from "commander";
import { DEFAULT_CONFIG } from "../config/kintsugi-config.js";
import { ConfigError, loadConfigFileWithWarnings, type LoadedConfig } from "../config/load-config.js";
import { EtcdClientConfigError, etcdClientFor } from "../store/etcd/etcd-client.js";
import { startKintsugi } from "../main.js";

function loadOrDefault(path: string | undefined): LoadedConfig {
  return path === undefined ? { config: DEFAULT_CONFIG, warnings: [] } : loadConfigFileWithWarnings(path);
}

/** `kintsugi serve [--config FILE]`: runs the server until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return new Command("serve")
    .description("run the kintsugi server (embedded defaults: 127.0.0.1:10180, database ./data/kintsugi.db)")
    .option("--config <FILE>", "YAML config file (every key optional)")
    .action(async (opts: { config?: string }) => {
      const { config, warnings } = loadOrDefault(opts.config);
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
 * `kintsugi check-config FILE`: validates a config file without starting anything. The TLS files it names are read
 * and checked as serve would: the `tls` section's by the loader, and with `store: etcd` the `etcd` section's by
 * building (not connecting) the etcd client.
 */
export function checkConfigCommand(out: (text: string) => void): Command {
  return new Command("check-config")
    .description("validate a config file without starting anything")
    .argument("<FILE>")
    .action((file: string) => {
      const { config, warnings } = loadConfigFileWithWarnings(file);
      if (config.store === "etcd") {
        try {
          etcdClientFor(config.etcd).close();
        } catch (err) {
          if (err instanceof EtcdClientConfigError) throw new ConfigError(file, err.problems);
          throw err;
        }
      }
      for (const w of warnings) out(`${file}: warning: ${w.path}: ${w.message}\n`);
      out(`${file}: ok\n`);
    });
}
