import { Command } from "commander";
import type { LoadedConfig } from "../config/load-config.js";
import type { StartEnvironment } from "../wiring/start-checks.js";

// The server's modules (the config's schemas, the store, the API) load when serve or check-config runs, not with
// the CLI: an operator command needs none of them (bench:cli).

/**
 * One of the server's modules, loaded with NODE_ENV=production, NODE_ENV put back at once: graphql-js picks its type
 * checks when it is loaded, and without NODE_ENV=production it adds a check against a second copy of graphql to every
 * failed instanceof, which costs list queries about a third of their speed (bench:api). Apollo's defaults and the
 * repair commands kintsugi runs see the environment the operator gave.
 */
async function loadServerModule<M>(load: () => Promise<M>): Promise<M> {
  const given = process.env["NODE_ENV"];
  if (given === undefined) process.env["NODE_ENV"] = "production";
  try {
    return await load();
  } finally {
    if (given === undefined) delete process.env["NODE_ENV"];
  }
}

// Refused before anything is opened, with every problem the start checks find (check-config runs the same).
async function loadOrDefault(checks: typeof import("../wiring/start-checks.js"), path: string | undefined): Promise<LoadedConfig> {
  if (path === undefined) return { config: (await import("../config/kintsugi-config.js")).DEFAULT_CONFIG, warnings: [] };
  return checks.loadConfigForStart(path, process.env);
}

/**
 * One full garbage collection once the server runs (`gc` is there when node runs with --expose-gc, as the kintsugi
 * executable starts it). Starting reads the whole store but its history into the mirror (and converts an older
 * SQLite file on the first start): what it read is garbage once the mirror keeps its part, but V8 collects its old
 * generation as the heap grows, and an idle replica hardly allocates, so it kept that peak as resident memory (at
 * 10,000 machines and a year of poll records: 300 MB, against 130 MB after one collection; bench:memory, bench:abuse).
 */
function collectStartGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** `kintsugi serve [--config FILE]`: runs the server until SIGINT or SIGTERM. */
export function serveCommand(): Command {
  return new Command("serve")
    .description("run the kintsugi server (embedded defaults: 127.0.0.1:10180, database ./data/kintsugi.db)")
    .option("--config <FILE>", "YAML config file (every key optional)")
    .action(async (opts: { config?: string }) => {
      // The config is checked before the server's modules load: a refused config loads about 210 files, not 970, and
      // takes 0.4 s of CPU, not 1.1 s (an operator's typo; the refusal tests start the real binary a few dozen times).
      const checks = await loadServerModule(() => import("../wiring/start-checks.js"));
      const { config, warnings } = await loadOrDefault(checks, opts.config);
      const { startKintsugi } = await loadServerModule(() => import("../main.js"));
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
      collectStartGarbage();
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
    .action(async (file: string) => (await import("./check-config-action.js")).checkConfig(file, env, out));
}
