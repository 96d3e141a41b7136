import { resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Etcd3 } from "etcd3";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../config/kintsugi-config.js";
import { loadConfigFile } from "../config/load-config.js";
import { copyStore, type CopyResult } from "../store/copy/copy-store.js";
import type { SnapshotSource, SnapshotTarget } from "../store/copy/store-snapshot.js";
import { openEtcdSnapshotSource, type EtcdSnapshotOptions } from "../store/copy/etcd-snapshot-access.js";
import { openEtcdSnapshotTarget } from "../store/copy/etcd-snapshot-access.js";
import { openSqliteSnapshotSource } from "../store/sqlite/sqlite-snapshot-source.js";
import { openSqliteSnapshotTarget } from "../store/sqlite/sqlite-snapshot-target.js";
import { sameFile } from "../store/backup/new-file.js";
import { CliError } from "./cli-error.js";
import { backupCommand, checkCommand, restoreCommand } from "./db-backup-commands.js";
import { counterLine, countLines } from "./db-report.js";

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
export function dbCommand(out: (text: string) => void): Command {
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
    .action(async (opts: { from: StoreSpec; to: StoreSpec; config?: string }) => {
      const { from, to } = opts;
      if (from.kind === "etcd" && to.kind === "etcd")
        throw new CliError("--from and --to are the same store (the etcd section of the config); copy between SQLite and etcd");
      if (from.kind === "sqlite" && to.kind === "sqlite" && sameFile(from.file, to.file))
        throw new CliError(`--from and --to are the same store (${from.file})`);
      const config: KintsugiConfig = opts.config === undefined ? DEFAULT_CONFIG : loadConfigFile(opts.config);
      out(formatCopy(await copyBetween(from, to, config)));
    });
  return db;
}

async function copyBetween(from: StoreSpec, to: StoreSpec, config: KintsugiConfig): Promise<CopyResult> {
  let client: Etcd3 | null = null;
  const etcd = async (): Promise<EtcdSnapshotOptions> => {
    // etcd3 and gRPC load only when a side is etcd (see openEtcdBackend).
    const { etcdClientFor } = await import("../store/kv/etcd-client.js");
    client ??= etcdClientFor(config.etcd);
    return { client, prefix: config.etcd.prefix, endpoints: config.etcd.endpoints, timeoutMs: config.etcd.timeoutMs };
  };
  let source: SnapshotSource | null = null;
  let target: SnapshotTarget | null = null;
  try {
    source = from.kind === "sqlite" ? await openSqliteSnapshotSource(from.file) : await openEtcdSnapshotSource(await etcd());
    target = to.kind === "sqlite" ? openSqliteSnapshotTarget(to.file) : await openEtcdSnapshotTarget(await etcd());
    return await copyStore(source, target);
  } finally {
    await target?.close();
    await source?.close();
    (client as Etcd3 | null)?.close();
  }
}

/** The summary of a verified copy: from where to where, the counts per aggregate, the counters and the hash. */
export function formatCopy(result: CopyResult): string {
  const { counts, sha256 } = result.summary;
  const lines = [`copied ${result.from} -> ${result.to}, verified`, ...countLines(counts), counterLine(result.summary), `  sha256 ${sha256} (source and copy)`];
  return `${lines.join("\n")}\n`;
}
