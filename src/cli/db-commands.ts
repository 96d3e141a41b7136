import { resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { backupCommand, checkCommand, restoreCommand } from "./db-backup-commands.js";
import { progressLines } from "./progress-lines.js";

/** A store named on the command line: `sqlite:FILE` or `etcd` (the config file's `etcd` section). */
export type StoreSpec = { readonly kind: "sqlite"; readonly file: string } | { readonly kind: "etcd" };

export function parseStoreSpec(text: string): StoreSpec {
  if (text === "etcd") return { kind: "etcd" };
  if (text.startsWith("sqlite:") && text.length > "sqlite:".length) return { kind: "sqlite", file: resolve(text.slice("sqlite:".length)) };
  throw new InvalidArgumentError('must be "sqlite:FILE" (a SQLite database file) or "etcd" (the etcd section of --config)');
}

const HELP = `
Copies a whole store (repair entries, their history, settings, poll outcomes, generation records, machine holds and
the counters that keep indexes from ever being reused) into an empty store, then reads the copy back and compares counts and a
sha256 of both. Stop every kintsugi on the source first: a SQLite file a running kintsugi holds is refused (its
lock), and so is an etcd prefix with running replicas (their election keys). The target must hold nothing.

The copy writes in chunks: a copy marker goes first and is removed last, after the verification. A copy that stops
or does not match leaves the marker, and kintsugi refuses to open that store until it is emptied and copied into
again. The source is never written (a SQLite source is migrated as kintsugi serve would).

Examples:
  kintsugi db copy --from sqlite:/var/lib/kintsugi/kintsugi.db --to etcd --config /etc/kintsugi/kintsugi.yaml
  kintsugi db copy --from etcd --to sqlite:./kintsugi.db --config /etc/kintsugi/kintsugi.yaml
`;

/**
 * `kintsugi db`: `backup OUT`, `restore BACKUP` and `check [FILE]` (see db-backup-commands.ts), and
 * `copy --from STORE --to STORE [--config FILE]`, which moves an installation between backends, verified.
 */
export function dbCommand(out: (text: string) => void, note: (text: string) => void = () => undefined, terminal = false): Command {
  const db = new Command("db").description("back up, restore and check kintsugi's store, or move it between SQLite and etcd");
  db.addCommand(backupCommand(out));
  db.addCommand(restoreCommand(out));
  db.addCommand(checkCommand(out));
  db.command("copy")
    .description("copy a whole store into an empty one and verify the copy (counts and sha256)")
    .addOption(new Option("--from <STORE>", "the store to copy: sqlite:FILE or etcd").argParser(parseStoreSpec).makeOptionMandatory())
    .addOption(new Option("--to <STORE>", "the empty store to copy into: sqlite:FILE or etcd").argParser(parseStoreSpec).makeOptionMandatory())
    .option("--config <FILE>", "YAML config file whose etcd section says where etcd is (default: http://127.0.0.1:2379, prefix /kintsugi/)")
    .addHelpText("after", HELP)
    // The stores' modules (SQLite, the config's schemas, etcd3) load when a db command runs, not with the CLI.
    .action(async (opts: { from: StoreSpec; to: StoreSpec; config?: string }) => {
      const progress = progressLines("copying", "items", note, terminal);
      out(await (await import("./db-copy-action.js")).copyStores(opts, progress));
    });
  return db;
}
