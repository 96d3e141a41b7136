import { gunzipSync, gzipSync } from "node:zlib";
import type { GeneratedCluster } from "../../domain/cluster/types.js";
import { KEPT_GENERATIONS, repeatsLatest, type ClusterGeneration, type GenerationTrigger } from "../../domain/cluster/generation-record.js";
import { DEFAULT_WORKER_SELECTION, readWorkerSelection, type WorkerSelection } from "../../domain/cluster/worker-selection.js";
import type { ClusterGenerationPort } from "../store-port.js";
import type { Db } from "./database.js";
import type { SqliteCommits } from "./sqlite-commits.js";

/** A cluster_generations row as SQLite returns it. */
export interface GenerationRow {
  seq: number;
  time: number;
  last_time: number;
  repeats: number;
  trigger: GenerationTrigger;
  generation: number;
  /** gzip'd JSON: 8,000 nodes are 4.9 MB of JSON and 260 kB gzip'd. */
  cluster: Buffer | null;
  changes: string;
  error: string | null;
  /** NULL in rows written before records named their policy: weighted. */
  policy: string | null;
}

const encode = (cluster: GeneratedCluster): Buffer => gzipSync(JSON.stringify(cluster));
const decode = (blob: Buffer): GeneratedCluster => JSON.parse(gunzipSync(blob).toString("utf8")) as GeneratedCluster;

/** A record whose configuration is decompressed on first use, so listing the history costs no decompression. */
function fromRow(r: GenerationRow): ClusterGeneration {
  let cluster: GeneratedCluster | null | undefined = r.cluster === null ? null : undefined;
  return {
    sequence: r.seq,
    outcome: r.cluster !== null ? "generated" : r.error !== null ? "failed" : "recovered",
    time: r.time,
    lastTime: r.last_time,
    repeats: r.repeats,
    trigger: r.trigger,
    policy: readWorkerSelection(r.policy),
    generation: r.generation,
    get cluster(): GeneratedCluster | null {
      if (cluster === undefined) cluster = decode(r.cluster as Buffer);
      return cluster;
    },
    changes: JSON.parse(r.changes) as string[],
    error: r.error,
  };
}

/**
 * Generated cluster configurations and failed generation rounds in SQLite, newest `keep` records kept; the
 * configuration in force (the newest generated one) is never pruned, so a run of failures cannot lose it.
 */
export class SqliteGenerationStore implements ClusterGenerationPort {
  private readonly insert;
  private readonly repeat;
  private readonly prune;
  private readonly selectCurrent;
  private readonly selectLatest;
  private readonly selectLast;
  private readonly selectGeneration;
  private readonly selectCurrentSeq;
  private controlPlanes: { readonly seq: number | null; readonly addresses: readonly string[] } | null = null;

  constructor(
    db: Db,
    private readonly commits: SqliteCommits,
    private readonly keep = KEPT_GENERATIONS,
  ) {
    this.insert = db.prepare(`INSERT INTO cluster_generations (time, last_time, repeats, trigger, generation, cluster, changes, error, policy)
      VALUES (@time, @time, 1, @trigger, @generation, @cluster, @changes, @error, @policy)`);
    this.repeat = db.prepare("UPDATE cluster_generations SET repeats = repeats + 1, last_time = ? WHERE seq = ?");
    this.prune = db.prepare(`DELETE FROM cluster_generations WHERE seq <= ?
      AND seq IS NOT (SELECT MAX(seq) FROM cluster_generations WHERE cluster IS NOT NULL)`);
    this.selectCurrent = db.prepare("SELECT * FROM cluster_generations WHERE cluster IS NOT NULL ORDER BY seq DESC LIMIT 1");
    this.selectLatest = db.prepare("SELECT * FROM cluster_generations ORDER BY seq DESC LIMIT 1");
    this.selectLast = db.prepare("SELECT * FROM (SELECT * FROM cluster_generations ORDER BY seq DESC LIMIT ?) ORDER BY seq");
    this.selectGeneration = db.prepare("SELECT * FROM cluster_generations WHERE generation = ? AND cluster IS NOT NULL");
    this.selectCurrentSeq = db.prepare("SELECT MAX(seq) FROM cluster_generations WHERE cluster IS NOT NULL").pluck();
  }

  /** The configuration in force: the newest generated one, or null before the first. */
  current(): ClusterGeneration | null {
    const row = this.selectCurrent.get() as GenerationRow | undefined;
    return row ? fromRow(row) : null;
  }

  /**
   * The addresses the configuration in force lists as control planes (none before the first). Every repair pass asks;
   * the configuration (megabytes of JSON for a large cluster) is decoded once per generation, not once per pass.
   */
  controlPlaneAddresses(): readonly string[] {
    const seq = (this.selectCurrentSeq.get() as number | null) ?? null;
    if (this.controlPlanes?.seq !== seq) {
      const nodes = this.current()?.cluster?.nodes ?? [];
      this.controlPlanes = { seq, addresses: Object.freeze(nodes.filter((n) => n.control_plane).map((n) => n.address)) };
    }
    return this.controlPlanes.addresses;
  }

  /** A kept generated configuration by its generation number. */
  generation(generation: number): ClusterGeneration | null {
    const row = this.selectGeneration.get(generation) as GenerationRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** The newest `count` records (the newest `keep` when null), oldest first. */
  last(count: number | null): ClusterGeneration[] {
    return (this.selectLast.all(count ?? this.keep) as GenerationRow[]).map(fromRow);
  }

  /** Records a new configuration as the next generation, in one transaction with the pruning. */
  async recordGenerated(
    time: number,
    trigger: GenerationTrigger,
    cluster: GeneratedCluster,
    changes: readonly string[],
    policy: WorkerSelection = DEFAULT_WORKER_SELECTION,
  ): Promise<ClusterGeneration> {
    return this.commits.write((draft) => {
      const generation = (this.current()?.generation ?? 0) + 1;
      const seq = this.append({ time, trigger, generation, cluster: encode(cluster), changes: JSON.stringify(changes), error: null, policy });
      draft.generation = {
        sequence: seq,
        outcome: "generated",
        time,
        lastTime: time,
        repeats: 1,
        trigger,
        policy,
        generation,
        cluster,
        changes: [...changes],
        error: null,
      };
      return draft.generation;
    });
  }

  /** The newest record of any kind, or null. */
  latest(): ClusterGeneration | null {
    const row = this.selectLatest.get() as GenerationRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Records the first round after a failure that succeeded without a change: generation works again. */
  async recordRecovered(time: number, trigger: GenerationTrigger, policy: WorkerSelection = DEFAULT_WORKER_SELECTION): Promise<ClusterGeneration> {
    return this.commits.write((draft) => {
      const generation = this.current()?.generation ?? 0;
      const seq = this.append({ time, trigger, generation, cluster: null, changes: "[]", error: null, policy });
      draft.generation = {
        sequence: seq,
        outcome: "recovered",
        time,
        lastTime: time,
        repeats: 1,
        trigger,
        policy,
        generation,
        cluster: null,
        changes: [],
        error: null,
      };
      return draft.generation;
    });
  }

  /**
   * Records a failed round; the configuration in force stays. A failure with the same error as the newest record
   * is counted on that record (`repeated: true`) instead of appended.
   */
  async recordFailed(
    time: number,
    trigger: GenerationTrigger,
    error: string,
    policy: WorkerSelection = DEFAULT_WORKER_SELECTION,
  ): Promise<{ readonly record: ClusterGeneration; readonly repeated: boolean }> {
    return this.commits.write((draft) => {
      const latest = this.latest();
      if (latest && repeatsLatest(latest, error, policy)) {
        this.repeat.run(time, latest.sequence);
        draft.generation = { ...latest, repeats: latest.repeats + 1, lastTime: time };
        return { record: draft.generation, repeated: true };
      }
      const generation = this.current()?.generation ?? 0;
      const seq = this.append({ time, trigger, generation, cluster: null, changes: "[]", error, policy });
      draft.generation = { sequence: seq, outcome: "failed", time, lastTime: time, repeats: 1, trigger, policy, generation, cluster: null, changes: [], error };
      return { record: draft.generation, repeated: false };
    });
  }

  private append(row: {
    time: number;
    trigger: GenerationTrigger;
    generation: number;
    cluster: Buffer | null;
    changes: string;
    error: string | null;
    policy: WorkerSelection;
  }): number {
    const seq = Number(this.insert.run(row).lastInsertRowid);
    this.prune.run(seq - this.keep);
    return seq;
  }
}
