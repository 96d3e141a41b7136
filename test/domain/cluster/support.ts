import { parseTemplate } from "../../../src/domain/cluster/template.js";
import type { ClusterMachine, ClusterTemplate } from "../../../src/domain/cluster/types.js";

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
export const DAY = 24 * 60 * 60 * 1000;

/** A healthy machine of role "cs" in rack 0, addressed 10.0.<rack>.<number in serial>, retiring in 2000 days. */
export function machine(serial: string, over: Partial<ClusterMachine> = {}): ClusterMachine {
  const rack = over.rack ?? 0;
  const n = Number(serial.replace(/\D/g, "") || "1");
  return {
    serial,
    rack,
    indexInRack: n,
    role: "cs",
    ipv4: [`10.${Math.floor(n / 250)}.${rack}.${(n % 250) + 1}`],
    registerDate: NOW - 100 * DAY,
    retireDate: NOW + 2000 * DAY,
    state: "HEALTHY",
    durationSeconds: 3600,
    stateSince: NOW - 3600 * 1000,
    labels: { datacenter: "dc1" },
    ...over,
  };
}

/** `count` machines m000.. spread round-robin over `racks` racks. */
export function fleet(count: number, racks: number, over: (i: number) => Partial<ClusterMachine> = () => ({})): ClusterMachine[] {
  return Array.from({ length: count }, (_, i) => machine(`m${String(i).padStart(3, "0")}`, { rack: i % racks, ...over(i) }));
}

export function template(yaml: string): ClusterTemplate {
  const r = parseTemplate(yaml);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.template;
}

export const MINIMAL = template(`
name: cluster
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
  control_plane: false
service_subnet: 10.68.0.0/16
`);

export const WEIGHTED = template(`
name: cluster
nodes:
- user: cybozu
  control_plane: true
  labels:
    cke.cybozu.com/role: "cs"
- user: cybozu
  labels:
    cke.cybozu.com/role: "cs"
    cke.cybozu.com/weight: "6.0"
- user: cybozu
  labels:
    cke.cybozu.com/role: "ss"
    cke.cybozu.com/weight: "3.0"
  taints:
  - key: cke.cybozu.com/role
    value: storage
    effect: NoExecute
- user: cybozu
  labels:
    cke.cybozu.com/role: "gpu"
    cke.cybozu.com/weight: "1.0"
service_subnet: 10.68.0.0/16
`);

/** Cluster constraints; the control-plane grace is the default 1800 s unless given. */
export const constraints = (controlPlaneCount: number, minimumWorkers: number, maximumWorkers = 0, waitSecondsToReplaceControlPlane = 1800) => ({
  controlPlaneCount,
  minimumWorkers,
  maximumWorkers,
  waitSecondsToReplaceControlPlane,
});
