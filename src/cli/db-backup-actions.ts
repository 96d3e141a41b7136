import { resolve } from "node:path";
import type { Etcd3 } from "etcd3";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../config/kintsugi-config.js";
import { loadConfigFile } from "../config/load-config.js";
import { restoreDatabase } from "../store/copy/database-restore.js";
import { backupEtcdStore, backupSqliteDatabase } from "../store/copy/store-backup.js";
import { checkEtcdStore, type EtcdSnapshotOptions } from "../store/copy/snapshot-access.js";
import { CliError } from "./cli-error.js";
import { checkSqliteFile } from "./db-check-action.js";
import { checkLines, counterLine, countLines, printed } from "./db-report.js";

/** The store a command works on: `--database`, else the config's store (its `database`, or its etcd section). */
type ChosenStore = { readonly kind: "sqlite"; readonly file: string } | { readonly kind: "etcd"; readonly config: KintsugiConfig };

export interface StoreOptions {
  readonly config?: string;
  readonly database?: string;
}

function chosenStore(opts: StoreOptions): ChosenStore {
  const config = opts.config === undefined ? DEFAULT_CONFIG : loadConfigFile(opts.config);
  if (opts.database !== undefined) return { kind: "sqlite", file: resolve(opts.database) };
  // A relative `database` is taken from the working directory, as kintsugi serve takes it.
  return config.store === "etcd" ? { kind: "etcd", config } : { kind: "sqlite", file: resolve(config.database) };
}

/** Runs `work` with an etcd client for the config's etcd section, closed after. */
async function withEtcd<T>(config: KintsugiConfig, work: (options: EtcdSnapshotOptions) => Promise<T>): Promise<T> {
  // etcd3 and gRPC load only for an etcd store (see openEtcdBackend).
  const { etcdClientFor } = await import("../adapters/etcd-client.js");
  const client: Etcd3 = etcdClientFor(config.etcd);
  try {
    return await work({ client, prefix: config.etcd.prefix, endpoints: config.etcd.endpoints, timeoutMs: config.etcd.timeoutMs });
  } finally {
    client.close();
  }
}

/** `kintsugi db backup OUT`: what to print. */
export async function backup(file: string, opts: StoreOptions & { readonly force: boolean }): Promise<string> {
  const store = chosenStore(opts);
  const result = await (store.kind === "sqlite"
    ? backupSqliteDatabase(store.file, file, opts.force)
    : withEtcd(store.config, (etcd) => backupEtcdStore(etcd, file, opts.force)));
  return printed([`backed up ${result.from} -> ${result.to}, checked`, ...checkLines(result.check)]);
}

/** `kintsugi db restore BACKUP`: what to print. */
export async function restore(backup: string, opts: StoreOptions): Promise<string> {
  const store = chosenStore(opts);
  if (store.kind === "etcd") {
    throw new CliError(
      `the config's store is etcd (prefix ${store.config.etcd.prefix}); restore a backup into etcd with kintsugi db copy --from sqlite:${backup} --to etcd ` +
        `--config ${opts.config ?? "FILE"}, after stopping every replica and emptying the prefix (etcdctl del --prefix ${store.config.etcd.prefix})`,
    );
  }
  const result = await restoreDatabase(backup, store.file, new Date());
  const kept = result.kept === null ? "  there was no database to keep" : `  the database it replaced is kept as ${result.kept}`;
  return printed([`restored ${result.backup.file} as the database ${result.database}`, kept, ...checkLines(result.backup), "start kintsugi again to serve it"]);
}

/** `kintsugi db check [FILE]`: what to print, or a CliError naming the problems. */
export async function check(file: string | undefined, opts: StoreOptions): Promise<string> {
  const store: ChosenStore = file === undefined ? chosenStore(opts) : { kind: "sqlite", file: resolve(file) };
  if (store.kind === "etcd") {
    const { description, summary } = await withEtcd(store.config, checkEtcdStore);
    return printed([`${description}: ok`, ...countLines(summary.counts), counterLine(summary), `  sha256 ${summary.sha256}`]);
  }
  return checkSqliteFile(store.file);
}
