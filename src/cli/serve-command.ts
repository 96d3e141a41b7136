import { Command } from "commander";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../config/kintsugi-config.js";
import { ConfigError, loadConfigFile } from "../config/load-config.js";
import { EtcdClientConfigError, etcdClientFor } from "../store/etcd/etcd-client.js";
import { startKintsugi } from "../main.js";

function loadOrDefault(path: string | undefined): KintsugiConfig {
  return path === undefined ? DEFAULT_CONFIG : loadConfigFile(path);
}

/** `kintsugi serve [--config FILE]`: runs the server until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return new Command("serve")
    .description("run the kintsugi server (embedded defaults: 127.0.0.1:10180, database ./data/kintsugi.db)")
    .option("--config <FILE>", "YAML config file (every key optional)")
    .action(async (opts: { config?: string }) => {
      const config = loadOrDefault(opts.config);
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
      const running = await startKintsugi(config);
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
      const config = loadConfigFile(file);
      if (config.store === "etcd") {
        try {
          etcdClientFor(config.etcd).close();
        } catch (err) {
          if (err instanceof EtcdClientConfigError) throw new ConfigError(file, err.problems);
          throw err;
        }
      }
      out(`${file}: ok\n`);
    });
}
