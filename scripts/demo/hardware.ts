import { existsSync, rmSync, watch, writeFileSync, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./machine.sh", import.meta.url));

/**
 * The demo's machines as hardware: a machine works while its file `healthy-ADDRESS` exists in `dir`. kintsugi's
 * health check and repair command look at and fix these files through machine.sh, as real ones reach a machine
 * over its BMC; the scenario breaks them and cuts their power here; sabakan's state-setter reports what it sees.
 */
export class DemoHardware {
  private watcher: FSWatcher | null = null;

  constructor(readonly dir: string) {}

  /** argv of machine.sh's `action` (kintsugi appends the address). */
  command(action: "health" | "reboot" | "repair", seconds = 0): string[] {
    return ["sh", SCRIPT, this.dir, action, seconds.toFixed(3)];
  }

  works(address: string): boolean {
    return existsSync(this.file(address));
  }

  /** The machine stops working (a fault, or its rack's power gone); a `stuck` fault survives a reboot. */
  fail(address: string, stuck = false): void {
    rmSync(this.file(address), { force: true });
    if (stuck) writeFileSync(this.file(address, "stuck"), "");
  }

  /** The machine works (installed, a part replaced, or its rack's power back). */
  fix(address: string): void {
    rmSync(this.file(address, "stuck"), { force: true });
    writeFileSync(this.file(address), "");
  }

  /** The machine's BMC stops answering: its repair commands fail, saying so on stderr, until {@link reseatBmc}. */
  killBmc(address: string): void {
    writeFileSync(this.file(address, "bmc-dead"), "");
  }

  /** The machine's BMC answers again. */
  reseatBmc(address: string): void {
    rmSync(this.file(address, "bmc-dead"), { force: true });
  }

  /** Calls `changed` soon after a repair command makes a machine work again (and sometimes for nothing). */
  watch(changed: () => void): void {
    this.watcher = watch(this.dir, () => changed());
    this.watcher.on("error", () => undefined);
  }

  close(): void {
    this.watcher?.close();
  }

  private file(address: string, kind: "healthy" | "stuck" | "bmc-dead" = "healthy"): string {
    return join(this.dir, `${kind}-${address}`);
  }
}
