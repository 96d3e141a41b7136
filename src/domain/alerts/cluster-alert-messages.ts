import type { Alert } from "./alert.js";

/** A `clusterGenerated` payload as the API sends it (enums upper-case, times RFC 3339). */
export interface ClusterGenerationPayload {
  readonly sequence: string;
  readonly outcome: "GENERATED" | "FAILED" | "UNCHANGED";
  readonly generation: number;
  readonly time: string;
  readonly trigger: string;
  readonly changes: readonly string[];
  readonly error: string | null;
}

/** How many changes a chat message lists before it says how many more there are. */
export const LISTED_CHANGES = 10;

const inForce = (generation: number) => (generation === 0 ? "no cluster configuration has been generated yet" : `generation ${generation} stays in force`);

/**
 * The alert for one cluster generation record: a new configuration (info, with its first changes), a failure
 * (warning, with the error and the generation that stays in force), or the first good round after a failure
 * (info). The server announces a failure once however often it repeats, so each payload is worth one message.
 */
export function alertForClusterGeneration(g: ClusterGenerationPayload): Alert {
  const fields = { generation: String(g.generation), trigger: g.trigger.toLowerCase(), time: g.time };
  if (g.outcome === "FAILED") {
    return { kind: "warning", severity: "warning", title: `cluster generation failed: ${inForce(g.generation)}`, text: g.error ?? "unknown error", fields };
  }
  if (g.outcome === "UNCHANGED") {
    return {
      kind: "cleared",
      severity: "info",
      title: "cluster generation works again",
      text: `generation ${g.generation} is up to date with sabakan's machines`,
      fields,
    };
  }
  const listed = g.changes.slice(0, LISTED_CHANGES);
  const more = g.changes.length - listed.length;
  const text = [...listed, ...(more > 0 ? [`... and ${more} more`] : [])].join("\n");
  const count = `${g.changes.length} ${g.changes.length === 1 ? "change" : "changes"}`;
  return { kind: "info", severity: "info", title: `cluster configuration generation ${g.generation}: ${count}`, text, fields };
}
