import { startWorld } from "./alert-bridge-world.js";
import { until } from "./until.js";

/**
 * Starts kintsugi in a test world and makes it do a bit of everything, so that most series of /metrics exist: a
 * repair that succeeds and one that fails, sabakan polls that hold a rack back, skip a machine without an address
 * and fail, and a generated cluster configuration. Returns /metrics as served, and stops the world.
 */
export async function scrapeAfterActivity(): Promise<string> {
  const w = await startWorld();
  try {
    const entries = [await w.add("fix", "10.0.0.1"), await w.add("fail", "10.0.0.2")];
    await until(
      "both repairs finished",
      async () => Promise.all(entries.map((e) => w.status(e))),
      (s) => s.every((x) => x === "SUCCEEDED" || x === "FAILED"),
    );
    await w.gql(`mutation { setConstraint(name: "maximum-unhealthy-machines-per-rack", value: 2) { maximumUnhealthyMachinesPerRack } }`);
    for (let i = 1; i <= 3; i++) w.sabakan.addMachine({ serial: `r5-${i}`, rack: 5, ipv4: [`10.5.0.${i}`], state: "UNHEALTHY" });
    w.sabakan.addMachine({ serial: "r6-1", rack: 6, ipv4: [], state: "UNHEALTHY" });
    for (let rack = 1; rack <= 3; rack++) w.sabakan.addMachine({ serial: `c${rack}`, rack, ipv4: [`10.8.${rack}.1`] });
    await w.gql(`mutation { runAutoRepair { error } }`);
    w.sabakan.failWithStatus(503);
    await w.gql(`mutation { runAutoRepair { error } }`);
    await w.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, {
      t: "name: c\nnodes:\n- user: u\n  control_plane: true\n- user: u\nservice_subnet: 10.68.0.0/16\n",
    });
    await until(
      "a generated cluster",
      async () => (await w.gql(`{ clusterGenerations(last: 1) { generation } }`))["clusterGenerations"],
      (h: Array<{ generation: number }>) => (h[0]?.generation ?? 0) > 0,
    );
    const res = await fetch(`${w.k.url}/metrics`);
    if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
    return await res.text();
  } finally {
    await w.dispose();
  }
}

/** The metric families a /metrics text declares (`# TYPE`), and the sample names each exports (histograms: _bucket, _sum, _count). */
export function exportedNames(metrics: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of metrics.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (name === undefined) continue;
    names.add(name);
    if (type === "histogram" || type === "summary") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}
