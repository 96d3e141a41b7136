import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeKubeApi } from "./fake-kube-api.js";
import type { SimulatedMachines } from "./machine-script.js";

/** Where a machine's repair is, as the world outside kintsugi sees it. */
export type WorldStage = "draining" | "commanding" | "watching";

/**
 * The world around a repair, moving at its own pace whoever leads: a pod evicted from a machine's node (in the fake
 * API's `manual` termination mode) terminates `holdMs` after it began, a `held-reboot` repair command returns
 * `holdMs` after it started, and the machine turns healthy `holdMs` after its command returned. So each stage lasts
 * long enough for a test to act in it (kill a leader there) and ends without the test's help. A command killed with
 * its replica still ends its stage: the reboot it began goes on without it.
 */
export class PacedWorld {
  private readonly since = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private paused = false;

  constructor(
    private readonly kube: FakeKubeApi,
    private readonly machines: SimulatedMachines,
    private readonly addresses: readonly string[],
    private readonly nodeOf: (address: string) => string,
    private readonly holdMs: number,
  ) {
    kube.terminationMode = "manual";
    this.timer = setInterval(() => this.advance(), 50);
  }

  /** The addresses whose repair is in `stage` now. */
  in(stage: WorldStage): string[] {
    return this.addresses.filter((address) => this.stageOf(address) === stage);
  }

  /** Holds every stage where it is (a slow world) until {@link resume}: kintsugi can do nothing but wait meanwhile. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private stageOf(address: string): WorldStage | null {
    if (this.terminating(address).length > 0) return "draining";
    const started = this.machines.runs("held-reboot", address) > 0;
    if (started && !this.machines.exists(`returned-${address}`)) return "commanding";
    if (this.machines.exists(`returned-${address}`) && !this.machines.isHealthy(address)) return "watching";
    return null;
  }

  private terminating(address: string): Array<{ namespace: string; name: string }> {
    return this.kube.pods().filter((p) => p.terminating && p.nodeName === this.nodeOf(address));
  }

  /** Ends each stage that has lasted `holdMs`. */
  private advance(): void {
    if (this.paused) return;
    const now = Date.now();
    for (const address of this.addresses) {
      const stage = this.stageOf(address);
      if (stage === null) continue;
      const key = `${stage} ${address}`;
      const since = this.since.get(key) ?? now;
      this.since.set(key, since);
      if (now - since < this.holdMs) continue;
      if (stage === "draining") for (const pod of this.terminating(address)) this.kube.finishTermination(pod.namespace, pod.name);
      if (stage === "commanding") {
        this.machines.release(address);
        if (!this.machines.running(address)) writeFileSync(join(this.machines.dir, `returned-${address}`), "");
      }
      if (stage === "watching") this.machines.setHealthy(address);
    }
  }
}
