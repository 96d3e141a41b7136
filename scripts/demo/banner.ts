import { PER_RACK, POWER_CUT_RACK, RACKS } from "./data-center.js";
import { CHANGED_CONSTRAINT, CONSTRAINT_VALUES } from "./incidents.js";
import { DEMO_TIMINGS as T } from "./timings.js";

/**
 * How often a machine breaks, as measured over the scenario's cycles (about 30 a cycle): the chaos tries every
 * breakEverySeconds, and a try finds no machine that may break about one time in five.
 */
const BREAKS_ABOUT_EVERY_SECONDS = 10;

/** What the banner names: where kintsugi is, its admin token, its database, and the pace. */
export interface BannerFacts {
  readonly url: string;
  readonly adminToken: string;
  readonly databasePath: string;
  readonly rackLimit: number;
  readonly scale: number;
}

/** The demo's banner: how to look at it, and what happens on every cycle, in the order it happens. */
export function banner(f: BannerFacts): string {
  const cli = `npx kintsugi --server ${f.url}`;
  const pace = f.scale === 1 ? "" : ` (running ${Number((1 / f.scale).toFixed(2))}x the wall clock)`;
  return `
kintsugi demo: ${RACKS * PER_RACK} simulated machines in ${RACKS} racks, each a Kubernetes node.

  GraphiQL:       ${f.url}/
  GraphQL:        ${f.url}/graphql   (sabakan's own API is served there too)
  Status page:    ${f.url}/status
  Watch:          ${cli} repair-queue watch
  Poll outcomes:  ${cli} auto-repair outcomes
  Metrics:        ${f.url}/metrics
  Database:       ${f.databasePath}   (SQLite; removed when the demo stops)
  Admin token:    ${f.adminToken}
                  clients without a token act as operators; an admin's change needs the token, e.g.
                  KINTSUGI_TOKEN=${f.adminToken} ${cli} constraints set ${CHANGED_CONSTRAINT} 12

The machines are a shell script (scripts/demo/machine.sh) standing in for their BMCs; on real machines the repair
commands are the shipped deploy/commands/ipmi-power-cycle and ipmi-power-is-on (or redfish-power-cycle and
redfish-power-on-health-ok), installed in /usr/local/libexec/kintsugi/ (see "Shipped BMC commands" in
docs/repair-semantics.md); power on is not health, so each operation proves its repair with success_requires.

Paste this subscription into GraphiQL to see repairs as they happen:

  subscription {
    repairEntryEvents { kind entry { index address nodename status step stepStatus } record { reason } }
  }

Every ${T.cycleSeconds / 60} minutes, for as long as it runs:
  - a machine breaks every ${BREAKS_ABOUT_EVERY_SECONDS} s or so; kintsugi drains it, reboots it (step 1) and, when the fault
    survives the reboot (every other one does), power-cycles it (step 2), and calls it repaired once the repair is
    proven: sabakan says HEALTHY again (a NotReady node: Ready again). Repairs are paced per rack (one at a time in
    a rack until repairs there are proven); the operator deletes succeeded entries every ${T.cleanupEverySeconds} s;
  - at ${T.nodeNotReadyAtSeconds} s, kubelets in one rack stop (one more than its pacing allows) while sabakan sees their machines
    healthy: kintsugi's health check enqueues them after ${T.nodeNotReadyTimeoutSeconds} s NotReady, and pacing holds the last back;
  - at ${T.drainRefusedAtSeconds} s, a machine breaks whose pod a disruption budget protects: the drain backs off, and the
    operator lifts the budget and resets the back-off ${T.budgetLiftedAfterSeconds} s later;
  - at ${T.powerCutAtSeconds} s, rack ${POWER_CUT_RACK} loses power for ${T.powerOutageSeconds} s: maximum-unhealthy-machines-per-rack = ${f.rackLimit}
    keeps kintsugi from "repairing" the whole rack until its power is back;
  - at ${T.flapAtSeconds} s, a machine breaks again right after its repair: kintsugi leaves it alone as recently
    repaired until its finished entry is deleted, repairs it again, and when it breaks a third time within
    ${T.escalationWindowSeconds} s holds it as a repeat offender; the operator replaces its part and releases it;
  - at ${T.controlPlanesFailAtSeconds} s, two control planes fail together: kintsugi repairs one control plane at a time;
  - at ${T.repairFailsAtSeconds} s, a machine's BMC stops answering: its repair fails and kintsugi says why (the command's
    stderr); the operator reads it, reseats the BMC, power-cycles the machine by hand and deletes the failed
    entry ${T.bmcReseatedAfterSeconds} s later; its rack is where the next cycle's kubelets stop;
  - at ${T.constraintChangeAtSeconds} s, the admin sets ${CHANGED_CONSTRAINT} to ${CONSTRAINT_VALUES[1]} (and back to ${CONSTRAINT_VALUES[0]} the next cycle).
Times are the scenario's clock${pace}. The story is on stdout; kintsugi's own log on stderr. Ctrl-C to stop.
`;
}
