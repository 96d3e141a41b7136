// `npm run test:faults -- [--rounds N] [--seed S] [--etcd-members 1|3] [--kinds KIND,...]`: the fault suite at any
// length. Without --etcd-members it runs N rounds on a one-member etcd, then a quarter as many (at least one) on a
// three-member etcd with one member cut off among them. Exits 1 on any violation.
import { ALL_FAULT_KINDS, ONE_MEMBER_KINDS, THREE_MEMBER_KINDS, seedFrom, type FaultKind } from "./fault-plan.js";
import { runFaultSuite } from "./fault-suite.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const rounds = Number(option("--rounds") ?? 20);
const members = option("--etcd-members");
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${option("--rounds")}`);
if (members !== undefined && members !== "1" && members !== "3") throw new Error(`--etcd-members must be 1 or 3, got ${members}`);
const seed = seedFrom(args, process.env);
const only = option("--kinds")?.split(",");
const unknown = only?.filter((k) => !ALL_FAULT_KINDS.includes(k as FaultKind)) ?? [];
if (unknown.length > 0) throw new Error(`--kinds: unknown ${unknown.join(", ")}; the kinds are ${ALL_FAULT_KINDS.join(", ")}`);
const chosen = (kinds: readonly FaultKind[]) => (only ? kinds.filter((k) => only.includes(k)) : kinds);

let violations = 0;
if (members !== "3") {
  violations += (await runFaultSuite({ seed, rounds, etcdMembers: 1, kinds: chosen(ONE_MEMBER_KINDS), print: console.log })).violations.length;
}
if (members !== "1") {
  const three = members === "3" ? rounds : Math.max(1, Math.round(rounds / 4));
  violations += (await runFaultSuite({ seed, rounds: three, etcdMembers: 3, kinds: chosen(THREE_MEMBER_KINDS), print: console.log })).violations.length;
}
process.exit(violations === 0 ? 0 : 1);
