import type { Etcd3 } from "etcd3";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../config/kintsugi-config.js";
import { loadConfigFile } from "../config/load-config.js";
import { copyStore, type CopyResult } from "../store/copy/copy-store.js";
import type { SnapshotSource, SnapshotTarget } from "../store/copy/store-snapshot.js";
import {
  type EtcdSnapshotOptions,
  openEtcdSnapshotSource,
  openEtcdSnapshotTarget,
  openSqliteSnapshotSource,
  openSqliteSnapshotTarget,
} from "../store/copy/snapshot-access.js";
import { sameFile } from "../store/copy/new-file.js";
import { CliError } from "./cli-error.js";
import type { ProgressReport } from "../support/progress.js";
import type { StoreSpec } from "./db-commands.js";
import { counterLine, countLines } from "./db-report.js";

/** `kintsugi db copy`: copies `from` into `to` (the config's etcd section where a side is etcd) and returns what to print. */
export async function copyStores(
  opts: { readonly from: StoreSpec; readonly to: StoreSpec; readonly config?: string },
  progress?: (p: ProgressReport) => void,
): Promise<string> {
  const { from, to } = opts;
  if (from.kind === "etcd" && to.kind === "etcd")
    throw new CliError("--from and --to are the same store (the etcd section of the config); copy between SQLite and etcd");
  if (from.kind === "sqlite" && to.kind === "sqlite" && sameFile(from.file, to.file)) throw new CliError(`--from and --to are the same store (${from.file})`);
  const config: KintsugiConfig = opts.config === undefined ? DEFAULT_CONFIG : loadConfigFile(opts.config);
  return formatCopy(await copyBetween(from, to, config, progress));
}

async function copyBetween(from: StoreSpec, to: StoreSpec, config: KintsugiConfig, progress?: (p: ProgressReport) => void): Promise<CopyResult> {
  let client: Etcd3 | null = null;
  const etcd = async (): Promise<EtcdSnapshotOptions> => {
    // etcd3 and gRPC load only when a side is etcd (see openEtcdBackend).
    const { etcdClientFor } = await import("../adapters/etcd-client.js");
    client ??= etcdClientFor(config.etcd);
    return { client, prefix: config.etcd.prefix, endpoints: config.etcd.endpoints, timeoutMs: config.etcd.timeoutMs };
  };
  let source: SnapshotSource | null = null;
  let target: SnapshotTarget | null = null;
  try {
    source = from.kind === "sqlite" ? await openSqliteSnapshotSource(from.file) : await openEtcdSnapshotSource(await etcd());
    target = to.kind === "sqlite" ? openSqliteSnapshotTarget(to.file) : openEtcdSnapshotTarget(await etcd());
    return await copyStore(source, target, progress);
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
