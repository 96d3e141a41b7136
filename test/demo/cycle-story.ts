// What one cycle of the demo's story must tell, incident by incident, as the README tells it: read from the story
// lines alone, so the long-run test can check the second and third cycles as well as the first.
import { DEMO_TIMINGS as T } from "../../scripts/demo/timings.js";
import type { StoryLine } from "../support/demo-process.js";

/**
 * How late an incident may start after its time: it waits (5 s at a time) while too many machines are down or queued,
 * which lasts longer where repairs run slow (the control planes came 35 s late at a load of 22 on two cores).
 */
const LATE_SECONDS = 50;
/** The fewest machines that break in a cycle, and the longest the chaos may go without breaking one (scenario s). */
export const MIN_BREAKS_PER_CYCLE = 24;
export const MAX_SECONDS_WITHOUT_A_BREAK = 40;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const addressOf = (serial: string) => {
  const [, rack, index] = /^r(\d)m(\d)$/.exec(serial) ?? [];
  return `10.69.${rack}.${index}`;
};

/** The story lines of one cycle, and a finder over the whole story from a time on. */
class Story {
  constructor(
    readonly all: readonly StoryLine[],
    readonly start: number,
  ) {}

  find(teller: string, pattern: RegExp, from: number, to = Number.POSITIVE_INFINITY): { line: StoryLine; match: RegExpExecArray } | null {
    for (const line of this.all) {
      if (line.at < from || line.at >= to || line.teller !== teller) continue;
      const match = pattern.exec(line.text);
      if (match) return { line, match };
    }
    return null;
  }

  /** Whether entry `index` of `address` was proven repaired by `signal` after `from`. */
  proven(index: string, address: string, signal: string, from: number): boolean {
    const pattern = new RegExp(`^#${index} ${escape(address)}: the health check reports the machine healthy; repair proven: .*\\(${signal}\\)$`);
    return this.find("kintsugi", pattern, from) !== null;
  }
}

/**
 * Every incident the README tells for a cycle that was not told as it is told: the kubelets at 0:20 (one more than
 * the allowance, the last held by pacing, each proven by its node Ready), the refused drain at 0:40 (backs off, the
 * budget lifted and the back-off reset after the back-off, the drain completing only then), the power cut at 1:00,
 * the flapping machine at 1:30 (left alone, escalated to a hold, released), the control planes at 2:50, the failed
 * repair at 3:20 (why, from the command's stderr; the operator reads it, reseats the BMC, the machine is repaired
 * and proven), the admin's change at 4:10, machines breaking throughout, every success proven. Empty when all is.
 */
export function cycleProblems(lines: readonly StoryLine[], cycle: number): string[] {
  const start = cycle * T.cycleSeconds;
  const end = start + T.cycleSeconds;
  const story = new Story(lines, start);
  const problems: string[] = [];
  const expect = (ok: unknown, what: string) => void (ok || problems.push(`cycle ${cycle + 1} (from ${start} s): ${what}`));
  const at = (seconds: number) => [start + seconds, start + seconds + LATE_SECONDS] as const;

  // The kubelets of one rack stop, one more node than its allowance; the last waits for pacing; each is proven Ready.
  const kubelets = story.find(
    "chaos",
    /^the kubelets of ((?:node-r\dm\d(?:, )?)+) \(rack (\d), whose pacing allows (\d+)\) stopped/,
    ...at(T.nodeNotReadyAtSeconds),
  );
  expect(kubelets, `the kubelets stop at ${T.nodeNotReadyAtSeconds} s`);
  if (kubelets) {
    const [, nodes = "", rack = "", allowance = ""] = kubelets.match;
    const serials = nodes.split(", ").map((n) => n.replace(/^node-/, ""));
    expect(serials.length === Number(allowance) + 1, `one more kubelet than the allowance ${allowance}: ${nodes}`);
    const failedBefore = story.find("chaos", /^(r(\d)m\d) \(.*\) broke: UNHEALTHY, and its BMC does not answer/, start - T.cycleSeconds, start);
    if (cycle > 0) {
      expect(failedBefore?.match[2] === rack, `the kubelets stop in the rack whose repair failed the cycle before (${failedBefore?.match[2]}), not ${rack}`);
      expect(allowance === "1", `the failure took the rack's allowance back to 1, not ${allowance}`);
    }
    const paced = story.find(
      "kintsugi",
      new RegExp(`^#\\d+ 10\\.69\\.${rack}\\.\\d+ waits: pacing: rack ${rack} allows ${allowance} repairs? in progress`),
      kubelets.line.at,
      end,
    );
    expect(paced, `an entry of rack ${rack} waits for pacing`);
    for (const serial of serials) {
      const address = addressOf(serial);
      const enqueued = story.find(
        "kintsugi",
        new RegExp(`^#(\\d+) ${escape(address)}: enqueued by health check node-ready: node node-${serial} has Ready=False`),
        kubelets.line.at,
        end,
      );
      expect(enqueued, `${serial} is enqueued by the health check`);
      if (enqueued)
        expect(story.proven(enqueued.match[1] as string, address, "node_ready", enqueued.line.at), `${serial}'s repair is proven by its node Ready`);
    }
  }

  // A drain a disruption budget refuses backs off; the operator lifts the budget and resets the back-off later; only
  // then does the drain complete.
  const refused = story.find(
    "chaos",
    /^(r\dm\d) \((10\.69\.\d\.\d+)\) broke: UNHEALTHY; a disruption budget keeps its pod web\/frontend-r\dm\d from being evicted$/,
    ...at(T.drainRefusedAtSeconds),
  );
  expect(refused, `a machine whose pod a budget protects breaks at ${T.drainRefusedAtSeconds} s`);
  if (refused) {
    const [, serial = "", address = ""] = refused.match;
    const backoff = story.find(
      "kintsugi",
      new RegExp(`^#(\\d+) ${escape(address)}: drain failed: dry-run eviction of web/frontend-${serial} was refused: .*; backing off \\(count 1\\) until `),
      refused.line.at,
    );
    expect(backoff, `the drain of ${serial} is refused and backs off`);
    const lifted = story.find(
      "operator",
      new RegExp(`^lifted the disruption budget of web/frontend-${serial} and reset the drain back-off of [1-9]\\d* entr`),
      refused.line.at,
    );
    expect(lifted, `the operator lifts ${serial}'s budget and resets the back-off`);
    if (backoff && lifted) {
      // Whole seconds on both sides: a second less is the clock's rounding, not a lift before its time.
      expect(
        lifted.line.at - backoff.line.at >= T.budgetLiftedAfterSeconds - 1,
        `the budget is lifted ${T.budgetLiftedAfterSeconds} s after the back-off, not ${lifted.line.at - backoff.line.at} s`,
      );
      const index = backoff.match[1] as string;
      const completed = story.find("kintsugi", new RegExp(`^#${index} ${escape(address)}: step 1: drain completed`), backoff.line.at);
      expect(completed && completed.line.at >= lifted.line.at, `#${index}'s drain completes after the reset, not before (${completed?.line.at})`);
    }
  }

  // Rack 3 loses power and gets it back; kintsugi holds it back meanwhile (the long-run test checks the hold).
  expect(story.find("power", /^rack 3 lost power/, ...at(T.powerCutAtSeconds)), `rack 3 loses power at ${T.powerCutAtSeconds} s`);

  // The flapping machine: left alone as recently repaired, then held as a repeat offender, then released.
  expect(
    story.find("chaos", /^the next machine kintsugi repairs breaks again right after its repair/, ...at(T.flapAtSeconds)),
    `the flap is armed at ${T.flapAtSeconds} s`,
  );
  const flapped = story.find("chaos", /^(r\dm\d) \(.*\) broke again right after its repair: UNHEALTHY$/, start + T.flapAtSeconds, end);
  expect(flapped, "a repaired machine breaks again at once");
  if (flapped) {
    const serial = flapped.match[1] as string;
    expect(
      story.find("kintsugi", new RegExp(`^leaves ${serial} alone \\(.*: recently repaired, finished entry #\\d+ still in the queue\\)`), flapped.line.at),
      `${serial} is left alone`,
    );
    const held = story.find("kintsugi", new RegExp(`^now skips ${serial} \\(.*: repaired 2 times in .*: held\\)$`), flapped.line.at);
    expect(held, `${serial} is held as a repeat offender`);
    if (held)
      expect(story.find("operator", new RegExp(`^replaced ${serial}'s faulty part and released the hold`), held.line.at), `the operator releases ${serial}`);
  }

  // Two control planes at once: one at a time.
  const planes = story.find("chaos", /^two control planes fail together/, ...at(T.controlPlanesFailAtSeconds));
  expect(planes, `two control planes fail at ${T.controlPlanesFailAtSeconds} s`);
  if (planes)
    expect(
      story.find("kintsugi", /^#\d+ 10\.69\.\d\.\d+ waits: one control plane at a time: entry \d+ is repairing control plane /, planes.line.at, end),
      "one control plane at a time",
    );

  // A repair fails; kintsugi says why, from the command's stderr; the operator reads it and reseats the BMC; the
  // machine is repaired and proven.
  const dead = story.find(
    "chaos",
    /^(r\dm\d) \((10\.69\.\d\.\d+)\) broke: UNHEALTHY, and its BMC does not answer: its repair commands will fail$/,
    ...at(T.repairFailsAtSeconds),
  );
  expect(dead, `a machine's BMC stops answering at ${T.repairFailsAtSeconds} s`);
  if (dead) {
    const [, serial = "", address = ""] = dead.match;
    const why = `step 1: repair command failed on all 2 attempts: exit code 1; stderr: Error: Unable to establish IPMI v2 / RMCP+ session | Unable to set Chassis Power Control to reboot: ${address} does not answer`;
    const failed = story.find("kintsugi", new RegExp(`^#(\\d+) ${escape(address)}: ${escape(why)}$`), dead.line.at);
    expect(failed, `kintsugi says why ${serial}'s repair failed, from the command's stderr`);
    if (failed) {
      const index = failed.match[1] as string;
      const read = story.find(
        "operator",
        new RegExp(
          `^read why #${index} ${escape(address)} failed \\(kintsugi repair-queue list: ${escape(why)}\\), reseated the BMC of ${serial}, power-cycled it by hand and deleted the failed entry \\(kintsugi repair-queue delete ${index}\\): the machine is HEALTHY again$`,
        ),
        failed.line.at,
      );
      expect(read, `the operator reads why #${index} failed, reseats the BMC and deletes the entry`);
    }
  }

  expect(
    story.find("admin", /^set maximum-repair-queue-entries to 1[02] \(was 1[02]\) with the admin token/, ...at(T.constraintChangeAtSeconds)),
    `the admin's change at ${T.constraintChangeAtSeconds} s`,
  );

  // Machines break throughout the cycle, not only in its first minutes.
  const breaks = lines
    .filter((l) => l.at >= start && l.at < end && l.teller === "chaos" && (/ broke(?: again)?[: ]/.test(l.text) || /^the kubelets of /.test(l.text)))
    .map((l) => l.at);
  const gaps = [start, ...breaks, end].slice(1).map((t, i) => t - ([start, ...breaks][i] as number));
  expect(breaks.length >= MIN_BREAKS_PER_CYCLE, `at least ${MIN_BREAKS_PER_CYCLE} machines break, not ${breaks.length}`);
  expect(Math.max(...gaps) <= MAX_SECONDS_WITHOUT_A_BREAK, `a machine breaks at least every ${MAX_SECONDS_WITHOUT_A_BREAK} s, not ${Math.max(...gaps)} s`);

  // Every success says how it was proven.
  const successes = lines.filter(
    (l) => l.at >= start && l.at < end && l.teller === "kintsugi" && /: the health check reports the machine healthy/.test(l.text),
  );
  const unproven = successes.filter((l) => !/; (?:repair proven: .+|nothing was repaired: it was healthy before any repair command ran)$/.test(l.text));
  expect(successes.length > 0 && unproven.length === 0, `every success says how it was proven: ${unproven.map((l) => l.text).join(" / ")}`);
  return problems;
}
