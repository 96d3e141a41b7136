import { resolve } from "node:path";
import { Command } from "commander";
import type { StoreOptions } from "./db-backup-actions.js";

// The stores' modules (SQLite, the config's schemas, etcd3) load when a db command runs, not with the CLI.
const actions = () => import("./db-backup-actions.js");

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
    .action(async (file: string, opts: StoreOptions & { force: boolean }) => out(await (await actions()).backup(file, opts)));
}

/** `kintsugi db restore BACKUP`: the backup becomes the database; the old one is kept. */
export function restoreCommand(out: (text: string) => void): Command {
  return new Command("restore")
    .description("put a backup in place as the database (kintsugi stopped); the database it replaces is kept")
    .argument("<BACKUP>", "a backup made by kintsugi db backup (or any kintsugi SQLite database)")
    .option("--config <FILE>", CONFIG_HELP)
    .option("--database <FILE>", DATABASE_HELP)
    .addHelpText("after", RESTORE_HELP)
    .action(async (backup: string, opts: StoreOptions) => out(await (await actions()).restore(backup, opts)));
}

/** `kintsugi db check [FILE]`: integrity, schema version and counts; exit code 1 when something is wrong. */
export function checkCommand(out: (text: string) => void): Command {
  return new Command("check")
    .description("check a SQLite database (integrity, schema version, every item) or the etcd store; exit 1 when not fine")
    .argument("[FILE]", "the SQLite file to check (default: the store of --config or --database)")
    .option("--config <FILE>", CONFIG_HELP)
    .option("--database <FILE>", DATABASE_HELP)
    .addHelpText("after", CHECK_HELP)
    .action(async (file: string | undefined, opts: StoreOptions) => out(await check(file, opts)));
}

/** A FILE named is checked without reading the config: from a bundle of its own, without the config's schemas. */
async function check(file: string | undefined, opts: StoreOptions): Promise<string> {
  if (file === undefined) return (await actions()).check(undefined, opts);
  return (await import("./db-check-action.js")).checkSqliteFile(resolve(file));
}
