import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./process-alive.js";

/**
 * A shell script that plays the machines: `sh machine.sh DIR ACTION [ARG] ADDRESS`. Every call is appended to
 * DIR/log (so tests can count runs), and a machine is healthy while DIR/healthy-ADDRESS exists. `held-fix` makes
 * the machine healthy once released; `held-reboot` only returns once released (touching DIR/returned-ADDRESS) and
 * leaves the machine unhealthy until the test says otherwise, as a machine still booting after its power cycle.
 */
const SCRIPT = `#!/bin/sh
dir=$1; action=$2; shift 2
for a; do addr=$a; done
echo "$action $*" >> "$dir/log"
case $action in
  health) if [ -f "$dir/healthy-$addr" ]; then echo true; else echo false; fi ;;
  fix) touch "$dir/healthy-$addr" ;;
  env-fix) env | grep '^KINTSUGI_' | sort > "$dir/env-$addr"; echo "HOME=$HOME" >> "$dir/env-$addr"; touch "$dir/healthy-$addr" ;;
  env-health) env | grep '^KINTSUGI_' | sort > "$dir/health-env-$addr"; if [ -f "$dir/healthy-$addr" ]; then echo true; else echo false; fi ;;
  noop) : ;;
  fail) echo "BMC of $addr does not answer" >&2; exit 3 ;;
  sleep) echo $$ > "$dir/pid-$addr"; sleep "$1"; touch "$dir/slept-$addr" ;;
  slow-fix) sleep "$1"; touch "$dir/healthy-$addr" ;;
  held-fix) echo $$ > "$dir/pid-$addr"; while [ ! -f "$dir/release-$addr" ]; do sleep 0.05; done; touch "$dir/healthy-$addr" ;;
  held-reboot) echo $$ > "$dir/pid-$addr"; while [ ! -f "$dir/release-$addr" ]; do sleep 0.05; done; touch "$dir/returned-$addr" ;;
  fail-times)
    n=$(cat "$dir/count-$addr" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$dir/count-$addr"
    if [ "$n" -le "$1" ]; then echo "attempt $n fails" >&2; exit 1; fi
    touch "$dir/healthy-$addr" ;;
  diag) echo "SEL of $addr: PSU 2 failed"; echo "ipmitool warning" >&2 ;;
  diag-fail) echo "BMC of $addr refuses the SEL" >&2; exit 4 ;;
  success) echo "success command for $addr" ;;
  success-fail) echo "cannot tell sabakan" >&2; exit 2 ;;
  *) echo "unknown action $action" >&2; exit 99 ;;
esac
`;

export class SimulatedMachines {
  readonly script: string;

  constructor(readonly dir: string) {
    this.script = join(dir, "machine.sh");
    writeFileSync(this.script, SCRIPT, { mode: 0o755 });
  }

  /** argv for a command of the script; the runner appends the address. */
  command(action: string, arg?: string | number): string[] {
    return ["sh", this.script, this.dir, action, ...(arg === undefined ? [] : [String(arg)])];
  }

  setHealthy(address: string, healthy = true): void {
    const path = join(this.dir, `healthy-${address}`);
    if (healthy) writeFileSync(path, "");
    else rmSync(path, { force: true });
  }

  /** Lets a running `held-fix` of the address finish (it waits until then). */
  release(address: string): void {
    writeFileSync(join(this.dir, `release-${address}`), "");
  }

  isHealthy(address: string): boolean {
    return existsSync(join(this.dir, `healthy-${address}`));
  }

  /** The calls made so far, e.g. ["health 10.0.0.1", "fix 10.0.0.1"]. */
  log(): string[] {
    const path = join(this.dir, "log");
    return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : [];
  }

  /** How many times `action` ran for `address`. */
  runs(action: string, address: string): number {
    return this.log().filter((line) => line.startsWith(`${action} `) && line.endsWith(` ${address}`)).length;
  }

  /**
   * Whether the `sleep`, `held-fix` or `held-reboot` process of the address (its pid file) is still running; false when
   * none started. A zombie is not running: killed after its parent died (a replica SIGKILLed with its spawner), the
   * process waits for init to reap it, which here took seconds under load.
   */
  running(address: string): boolean {
    const path = join(this.dir, `pid-${address}`);
    if (!existsSync(path)) return false;
    return isAlive(Number(readFileSync(path, "utf8").trim()));
  }

  /** The KEY=VALUE lines an `env-fix` (or, with `file` "health-env", an `env-health`) last wrote for the address. */
  environment(address: string, file = "env"): Map<string, string> {
    const text = readFileSync(join(this.dir, `${file}-${address}`), "utf8");
    return new Map(
      text
        .trim()
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
  }

  exists(name: string): boolean {
    return existsSync(join(this.dir, name));
  }
}
