import { KEPT_GENERATIONS, repeatsLatest, type ClusterGeneration, type GenerationTrigger } from "../../domain/cluster/generation-record.js";
import type { GeneratedCluster } from "../../domain/cluster/types.js";
import { DEFAULT_WORKER_SELECTION, type WorkerSelection } from "../../domain/cluster/worker-selection.js";
import type { ClusterGenerationPort, FailedGeneration } from "../store-port.js";
import type { KeyRange } from "../kv/kv-driver.js";
import { nextSequence } from "./outcome-port.js";
import type { StoredGenerationFields } from "./value-schemas.js";
import { encodeCluster, encodeValue, generationFromStored } from "./store-values.js";
import { stampedWrite, type WritePlan } from "./store-writer.js";
import { CorePort } from "./core-port.js";

/**
 * Generated cluster configurations and failed rounds, the newest {@link KEPT_GENERATIONS} kept and the one in force
 * never pruned. Every write compares and advances the generations head.
 */
export class CoreGenerationPort extends CorePort implements ClusterGenerationPort {
  private controlPlanes: { readonly sequence: number | null; readonly addresses: readonly string[] } | null = null;

  current(): ClusterGeneration | null {
    return this.mirror.generationList().findLast((g) => g.record.outcome === "generated")?.record ?? null;
  }

  latest(): ClusterGeneration | null {
    return this.mirror.generationList().at(-1)?.record ?? null;
  }

  /** Decoded once per configuration in force, not once per repair pass. */
  controlPlaneAddresses(): readonly string[] {
    const current = this.current();
    const sequence = current?.sequence ?? null;
    if (this.controlPlanes?.sequence !== sequence) {
      const nodes = current?.cluster?.nodes ?? [];
      this.controlPlanes = { sequence, addresses: Object.freeze(nodes.filter((n) => n.control_plane).map((n) => n.address)) };
    }
    return this.controlPlanes.addresses;
  }

  generation(generation: number): ClusterGeneration | null {
    return this.mirror.generationList().find((g) => g.record.outcome === "generated" && g.record.generation === generation)?.record ?? null;
  }

  last(count: number | null): ClusterGeneration[] {
    const n = count ?? KEPT_GENERATIONS;
    const kept = this.mirror.generationList();
    return n <= 0 ? [] : kept.slice(-n).map((g) => g.record);
  }

  recordGenerated(
    time: number,
    trigger: GenerationTrigger,
    cluster: GeneratedCluster,
    changes: readonly string[],
    policy: WorkerSelection = DEFAULT_WORKER_SELECTION,
    templateSetAt: number | null = null,
  ): Promise<ClusterGeneration> {
    return this.writer.write("recording a generated cluster configuration", (writeId) =>
      this.append(writeId, {
        time,
        trigger,
        policy,
        generation: (this.current()?.generation ?? 0) + 1,
        cluster: encodeCluster(cluster),
        changes: [...changes],
        error: null,
        ...(templateSetAt !== null && { templateSetAt }),
      }),
    );
  }

  recordRecovered(time: number, trigger: GenerationTrigger, policy: WorkerSelection = DEFAULT_WORKER_SELECTION): Promise<ClusterGeneration> {
    return this.writer.write("recording a recovered cluster generation", (writeId) =>
      this.append(writeId, { time, trigger, policy, generation: this.current()?.generation ?? 0, cluster: null, changes: [], error: null }),
    );
  }

  recordFailed(time: number, trigger: GenerationTrigger, error: string, policy: WorkerSelection = DEFAULT_WORKER_SELECTION): Promise<FailedGeneration> {
    return this.writer.write<FailedGeneration>("recording a failed cluster generation", (writeId) => {
      const latest = this.mirror.generationList().at(-1);
      if (latest && repeatsLatest(latest.record, error, policy)) {
        const fields = { ...latest.fields, repeats: latest.fields.repeats + 1, lastTime: time };
        return this.writeRecord(writeId, fields, latest.fields.sequence + 1, [], { record: generationFromStored(fields), repeated: true });
      }
      const appended = this.append(writeId, { time, trigger, policy, generation: this.current()?.generation ?? 0, cluster: null, changes: [], error });
      return { ...appended, result: { record: appended.result, repeated: false } };
    });
  }

  /** A new record with the next sequence, pruning the records beyond the newest {@link KEPT_GENERATIONS} but the one in force. */
  private append(writeId: string, fields: Omit<StoredGenerationFields, "sequence" | "lastTime" | "repeats">): WritePlan<ClusterGeneration> {
    const list = this.mirror.generationList();
    const sequence = nextSequence(this.mirror.generationsHead, this.keys.generationsHead, list.at(-1)?.fields.sequence ?? 0);
    const stored: StoredGenerationFields = { ...fields, sequence, lastTime: fields.time, repeats: 1 };
    const inForce = stored.cluster !== null ? sequence : (this.current()?.sequence ?? null);
    return this.writeRecord(writeId, stored, sequence + 1, this.pruned(sequence - KEPT_GENERATIONS, inForce), generationFromStored(stored));
  }

  private pruned(limit: number, inForce: number | null): KeyRange[] {
    if (limit < 1) return [];
    if (inForce === null || inForce > limit) return [this.keys.generations(0, limit)];
    const before = inForce > 1 ? [this.keys.generations(0, inForce - 1)] : [];
    return inForce < limit ? [...before, this.keys.generations(inForce + 1, limit)] : before;
  }

  private writeRecord<T>(writeId: string, fields: StoredGenerationFields, next: number, deletes: KeyRange[], result: T): WritePlan<T> {
    const head = this.mirror.generationsHead;
    const puts = [{ key: this.keys.generation(fields.sequence), value: encodeValue({ record: fields }) }];
    return stampedWrite(this.keys.generationsHead, head, writeId, { next: Math.max(next, head?.value?.next ?? 1) }, { puts, deletes }, result);
  }
}
