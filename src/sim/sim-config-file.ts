import { ConfigError, parseConfig } from "../config/load-config.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import { PROOF_SIGNALS, type SuccessProof } from "../domain/proof/repair-evidence.js";
import { simRepairConfig, type SimSettings } from "./sim-config.js";
import type { SimRandom } from "./sim-random.js";

/** Which sections the simulated config file has besides `repair` (serve reads signals only from those it has). */
export interface SimSections {
  readonly sabakan: boolean;
  readonly kubernetes: boolean;
}

/** A config drawn from the seed: the proof every operation asks for and the sections the file names. */
export interface DrawnConfig {
  readonly proof: SuccessProof | undefined;
  readonly sections: SimSections;
}

/**
 * Draws the proof settings, so the simulator also runs the configs it did not think of: any subset of the proof signals, a dwell that may be longer than
 * the steps' longest watch (900 s), and a file that may lack the sabakan or kubernetes section a signal needs.
 */
export function drawConfig(random: SimRandom): DrawnConfig {
  const sections = { sabakan: random.chance(0.8), kubernetes: random.chance(0.8) };
  if (random.chance(0.3)) return { proof: undefined, sections };
  const requires = PROOF_SIGNALS.filter(() => random.chance(0.4));
  return { proof: { requires, dwellSeconds: random.pick([0, 60, 120, 600, 900, 1200, 3600]) }, sections };
}

/** The simulated repair config written as a config file (JSON is YAML), as an operator would hand it to serve. */
export function simConfigText(settings: SimSettings, sections: SimSections): string {
  const repair = simRepairConfig(settings);
  const file = {
    ...(sections.sabakan && { sabakan: { url: "http://sabakan.sim" } }),
    ...(sections.kubernetes && { kubernetes: {} }),
    repair: {
      max_concurrent_repairs: repair.maxConcurrentRepairs,
      eviction_timeout_seconds: repair.evictionTimeoutSeconds,
      ...(repair.escalation && { escalation: { max_repairs: repair.escalation.maxRepairs, window_seconds: repair.escalation.windowSeconds } }),
      repair_procedures: repair.repairProcedures.map((p) => ({
        machine_types: p.machineTypes,
        repair_operations: p.repairOperations.map((o) => ({
          operation: o.operation,
          health_check_command: o.healthCheckCommand,
          command_timeout_seconds: o.commandTimeoutSeconds,
          success_command_timeout: o.successCommandTimeout,
          repair_steps: o.repairSteps.map((s) => ({
            repair_command: s.repairCommand,
            command_timeout_seconds: s.commandTimeoutSeconds,
            command_retries: s.commandRetries,
            command_interval: s.commandInterval,
            need_drain: s.needDrain,
            watch_seconds: s.watchSeconds,
          })),
          ...(o.successProof && { success_requires: o.successProof.requires, success_dwell_seconds: o.successProof.dwellSeconds }),
        })),
      })),
    },
  };
  return JSON.stringify(file, null, 2);
}

/** The repair config as serve would load it from the file, or why serve would refuse to start. */
export function loadSimConfig(
  settings: SimSettings,
  sections: SimSections,
): { readonly ok: true; readonly repair: RepairConfig } | { readonly ok: false; readonly refused: string } {
  try {
    return { ok: true, repair: parseConfig(simConfigText(settings, sections), "sim.yaml").repair };
  } catch (err) {
    if (err instanceof ConfigError) return { ok: false, refused: err.message };
    throw err;
  }
}
