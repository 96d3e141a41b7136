import { resolve } from "node:path";
import { Command } from "commander";
import type { Etcd3 } from "etcd3";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../config/kintsugi-config.js";
import { loadConfigFile } from "../config/load-config.js";
import { checkDatabaseFile } from "../store/backup/database-check.js";
import { restoreDatabase } from "../store/backup/database-restore.js";
import { checkEtcdStore } from "../store/backup/etcd-check.js";
import { backupEtcdStore, backupSqliteDatabase } from "../store/backup/store-backup.js";
import type { EtcdSnapshotOptions } from "../store/copy/etcd-snapshot-access.js";
import { CliError } from "./cli-error.js";
import { checkLines, counterLine, countLines, printed } from "./db-report.js";

/** The store a command works on: `--database`, else the config's store (its `database`, or its etcd section). */
type ChosenStore = { readonly kind: "sqlite"; readonly file: string } | { readonly kind: "etcd"; readonly config: KintsugiConfig };

interface StoreOptions {
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
  const { etcdClientFor } = await import("../store/kv/etcd-client.js");
  const client: Etcd3 = etcdClientFor(config.etcd);
  try {
    return await work({ client, prefix: config.etcd.prefix, endpoints: config.etcd.endpoints, timeoutMs: config.etcd.timeoutMs });
  } finally {
    client.close();
  }
}

const CONFIG_HELP = "YAML config file: its `database` (or with store: etcd, its etcd section) is the store (default: ./data/kintsugi.db)";
const DATABASE_HELP = "the SQLite database file, instead of the config's";

const BACKUP_HELP = `
Runs while kintsugi serves. A SQLite database is copied with SQLite's online backup, in one read transaction: the
copy is the database as of one commit, and kintsugi goes on writing meanwhile. With store: etcd the store is read at
one etcd revision (replicas go on writing) and written into a SQLite file, verified with a sha256 of both. The copy
is checked as kintsugi db check checks, written to a temporary file beside OUT and renamed onto OUT only when all is
well: OUT is a whole backup or is not there. kintsugi serve runs on it; kintsugi db restore puts it back.

Examples:
  kintsugi db backup /var/backups/kintsugi/kintsugi-$(date +%Y%m%dT%H%M%S).db --config /etc/kintsugi/kintsugi.yaml
  kintsugi db backup ./kintsugi.backup.db --database ./data/kintsugi.db --force
`;

const RESTORE_HELP = `
Stop kintsugi first: a database a running kintsugi holds is refused (its lock). The backup is checked as kintsugi db
check checks, and a backup that fails is refused with the database left as it is. The database is not deleted: it is
moved aside to DATABASE.before-restore-<time> (with its WAL files). A backup from an older kintsugi is migrated
forward when kintsugi serve starts on it; one from a newer kintsugi is refused. With store: etcd, restore with
kintsugi db copy --from sqlite:BACKUP --to etcd into the emptied prefix, all replicas stopped.
`;

const CHECK_HELP = `
Checks FILE (default: the config's database, or with store: etcd the etcd store) without writing to it; kintsugi may
be running. A SQLite file gets SQLite's integrity and foreign key checks, its schema version against this kintsugi's
(older: migrated forward at start; newer: refused), and every stored item read and checked as kintsugi db copy reads
it (a file of an older schema is migrated in memory for this). Prints the counts and a sha256 of the content; exit
code 0 when all is well, 1 with the problems named otherwise.
`;

/** `kintsugi db backup OUT`: a consistent copy of the store, while kintsugi runs. */
export function backupCommand(out: (text: string) => void): Command {
  return new Command("backup")
    .description("copy the store into a new SQLite file OUT while kintsugi runs (consistent, checked)")
    .argument("<OUT>", "the backup file to write (refused when it exists, unless --force)")
    .option("--config <FILE>", CONFIG_HELP)
    .option("--database <FILE>", DATABASE_HELP)
    .option("--force", "replace OUT when it exists", false)
    .addHelpText("after", BACKUP_HELP)
    .action(async (file: string, opts: StoreOptions & { force: boolean }) => {
      const store = chosenStore(opts);
      const result = await (store.kind === "sqlite"
        ? backupSqliteDatabase(store.file, file, opts.force)
        : withEtcd(store.config, (etcd) => backupEtcdStore(etcd, file, opts.force)));
      out(printed([`backed up ${result.from} -> ${result.to}, checked`, ...checkLines(result.check)]));
    });
}

/** `kintsugi db restore BACKUP`: the backup becomes the database; the old one is kept. */
export function restoreCommand(out: (text: string) => void): Command {
  return new Command("restore")
    .description("put a backup in place as the database (kintsugi stopped); the database it replaces is kept")
    .argument("<BACKUP>", "a backup made by kintsugi db backup (or any kintsugi SQLite database)")
    .option("--config <FILE>", CONFIG_HELP)
    .option("--database <FILE>", DATABASE_HELP)
    .addHelpText("after", RESTORE_HELP)
    .action(async (backup: string, opts: StoreOptions) => {
      const store = chosenStore(opts);
      if (store.kind === "etcd") {
        throw new CliError(
          `the config's store is etcd (prefix ${store.config.etcd.prefix}); restore a backup into etcd with kintsugi db copy --from sqlite:${backup} --to etcd ` +
            `--config ${opts.config ?? "FILE"}, after stopping every replica and emptying the prefix (etcdctl del --prefix ${store.config.etcd.prefix})`,
        );
      }
      const result = await restoreDatabase(backup, store.file, new Date());
      const kept = result.kept === null ? "  there was no database to keep" : `  the database it replaced is kept as ${result.kept}`;
      out(
        printed([`restored ${result.backup.file} as the database ${result.database}`, kept, ...checkLines(result.backup), "start kintsugi again to serve it"]),
      );
    });
}

/** `kintsugi db check [FILE]`: integrity, schema version and counts; exit code 1 when something is wrong. */
export function checkCommand(out: (text: string) => void): Command {
  return new Command("check")
    .description("check a SQLite database (integrity, schema version, every item) or the etcd store; exit 1 when not fine")
    .argument("[FILE]", "the SQLite file to check (default: the store of --config or --database)")
    .option("--config <FILE>", CONFIG_HELP)
    .option("--database <FILE>", DATABASE_HELP)
    .addHelpText("after", CHECK_HELP)
    .action(async (file: string | undefined, opts: StoreOptions) => {
      const store: ChosenStore = file === undefined ? chosenStore(opts) : { kind: "sqlite", file: resolve(file) };
      if (store.kind === "etcd") {
        const { description, summary } = await withEtcd(store.config, checkEtcdStore);
        out(printed([`${description}: ok`, ...countLines(summary.counts), counterLine(summary), `  sha256 ${summary.sha256}`]));
        return;
      }
      const check = await checkDatabaseFile(store.file);
      if (check.problems.length > 0) throw new CliError(`database ${check.file} fails its check: ${check.problems.join("; ")}`);
      out(printed([`${check.file}: ok`, "  integrity ok, foreign keys ok", ...checkLines(check)]));
    });
}
