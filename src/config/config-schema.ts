import cron from "node-cron";
import { z } from "../support/zod.js";
import { DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS, MIN_INHERITED_COMMAND_MARGIN_SECONDS } from "../domain/queue/command-marker.js";
import { healthChecks, refuseUnknownOperations } from "./health-check-schema.js";
import { authSection, checkClientCertificates, requireAuthOffLoopback } from "./auth-schema.js";
import { tlsSection } from "./tls-files.js";
import { refuseUnknownEscalation, repairEscalation } from "./escalation-schema.js";
import { labelSelector, whenClean } from "./label-selector-schema.js";
import { limitsSection } from "./limits-schema.js";
import { etcdSection } from "./etcd-schema.js";
import { leaderElectionSection } from "./leader-election-schema.js";
import { pollRecordsSection } from "./poll-records-schema.js";
import { refuseUnreachableProof } from "./proof-reachability.js";
import { CONSTRAINT_MINIMUMS, CONSTRAINT_NAMES, DEFAULT_CONSTRAINTS, checkConstraints, type Constraints } from "../domain/shared/constraints.js";
import { EMPTY_REPAIR_CONFIG } from "../domain/queue/repair-config.js";
import { PACING_DOMAINS } from "../domain/pacing/repair-pacing.js";
import { PROOF_SIGNALS } from "../domain/proof/repair-evidence.js";
import { hasUrlCredentials } from "../domain/shared/url-credentials.js";
import { labelKeyProblem } from "../domain/shared/label-selector.js";
import { DEFAULT_WORKER_SELECTION, WORKER_SELECTIONS } from "../domain/cluster/worker-selection.js";
import {
  MAX_TIMER_SECONDS,
  TIMER_TOO_LONG,
  DEFAULT_DATABASE,
  DEFAULT_KUBERNETES_LIMITS,
  DEFAULT_KUBERNETES_TIMEOUT_SECONDS,
  DEFAULT_LISTEN,
  DEFAULT_RUNNER,
  DEFAULT_SABAKAN_MAX_RESPONSE_BYTES,
  DEFAULT_SABAKAN_MAX_CONCURRENT_REQUESTS,
  DEFAULT_SABAKAN_SCHEDULE,
  DEFAULT_SABAKAN_TIMEOUT_SECONDS,
} from "./kintsugi-config.js";

/** CKE's defaults for the timeouts of commands (seconds; 0 = none). */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 30;

/** How a YAML value reads in a message: scalars verbatim, collections by kind. */
function describe(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "a mapping";
  if (typeof input === "string") return JSON.stringify(input);
  return String(input);
}

function typeMessage(expected: string, input: unknown): string {
  return input === undefined ? "is required" : `must be ${expected}, got ${describe(input)}`;
}

const NOUNS: Record<string, string> = {
  string: "a string",
  number: "an integer",
  int: "an integer",
  boolean: "a boolean (true or false)",
  object: "a mapping",
  record: "a mapping",
  array: "a list",
};

/**
 * Why an unquoted YAML scalar is not what was meant: YAML 1.2 reads `True`, `false` and `FALSE` as booleans and `10`
 * as a number where a string is expected (quote it), and `yes`, `no`, `on` and `off` as strings where a boolean is
 * expected (YAML 1.1 and Go's YAML readers, CKE's among them, read them as booleans).
 */
function yamlHint(expected: string, input: unknown): string {
  if (expected === "string" && (typeof input === "boolean" || typeof input === "number")) return ` (YAML reads it unquoted as a ${typeof input}: quote it)`;
  if (expected === "boolean" && typeof input === "string" && /^(?:y|yes|n|no|on|off)$/i.test(input)) {
    return ` (YAML 1.2 reads ${input} as a string, not a boolean: write ${/^(?:y|yes|on)$/i.test(input) ? "true" : "false"})`;
  }
  return "";
}

/** For a choice of strings given an unquoted boolean or number: the choice it spells, quoted (`status: "False"`). */
function quoteHint(values: readonly unknown[], input: unknown): string {
  if ((typeof input !== "boolean" && typeof input !== "number") || !values.every((v) => typeof v === "string")) return "";
  const meant = (values as readonly string[]).find((v) => v.toLowerCase() === String(input).toLowerCase());
  return ` (YAML reads it unquoted as a ${typeof input}: quote it${meant === undefined ? "" : `, "${meant}"`})`;
}

/**
 * The per-parse error map: short, human messages for zod's generic issues. Messages set on a schema win over it.
 * `unrecognized_keys` issues name the object; the loader reports each key on its own path.
 */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      return typeMessage(NOUNS[issue.expected] ?? issue.expected, issue.input) + yamlHint(issue.expected, issue.input);
    case "too_small":
      if (issue.origin === "array") return "must be a non-empty list";
      if (issue.origin === "string") return "must not be empty";
      return `must be ${issue.inclusive ? ">=" : ">"} ${String(issue.minimum)}`;
    case "too_big":
      return `must be ${issue.inclusive ? "<=" : "<"} ${String(issue.maximum)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}, got ${describe(issue.input)}${quoteHint(issue.values, issue.input)}`;
    case "unrecognized_keys":
      return "unknown key";
    default:
      return undefined;
  }
};

const nonNegativeInt = z.int().min(0);
/** A timeout or interval in seconds: > 0, and no longer than a timer can wait (see MAX_TIMER_SECONDS). */
export const timerSeconds = z.number().gt(0).max(MAX_TIMER_SECONDS, { error: TIMER_TOO_LONG });
const positiveInt = z.int().gt(0);
const nonEmptyString = z.string().min(1);

// YAML turns an unquoted 10 into a number; an argv item is never converted behind the operator's back.
const argString = z.string({
  error: (issue) => (issue.input === undefined ? undefined : `${typeMessage("a string", issue.input)} (quote it)`),
});

const stringList = <T extends z.ZodType>(item: T) =>
  z
    .array(item, {
      error: (issue) => (issue.code === "invalid_type" ? typeMessage("a list of strings", issue.input) : undefined),
    })
    .min(1);

/** A command as an argv list; the machine's address is appended when it runs. */
const argv = stringList(argString).refine((args) => args[0] !== "", {
  message: "the command name must not be empty",
  path: [0],
});

// CKE's repair procedures are read as CKE reads them: a key it does not know is ignored (z.object strips it) and
// warned about by repairKeyWarnings (CKE's own test cluster.yml carries one); the `repair` mapping itself and
// kintsugi's own sections (pacing, escalation) are strict: kintsugi knows every key of CKE's Repair struct
// (cluster.go), so a key there that it does not know is a misspelling, and ignoring it would run with the default.
const repairStep = z.object({
  repair_command: argv,
  command_timeout_seconds: nonNegativeInt.default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  command_retries: nonNegativeInt.default(0),
  command_interval: nonNegativeInt.default(0),
  need_drain: z.boolean().default(false),
  watch_seconds: nonNegativeInt.default(0),
});

const repairOperation = z.object({
  operation: nonEmptyString,
  repair_steps: z.array(repairStep).min(1),
  health_check_command: argv,
  command_timeout_seconds: nonNegativeInt.default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  success_command: argv.optional(),
  success_command_timeout: nonNegativeInt.default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  diagnostics_command: argv.optional(),
  diagnostics_timeout_seconds: nonNegativeInt.default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  success_requires: z
    .array(z.enum(PROOF_SIGNALS))
    .min(1)
    .refine((signals) => new Set(signals).size === signals.length, { message: "each signal may be listed once" })
    .optional(),
  success_dwell_seconds: nonNegativeInt.optional(),
});

const repairProcedure = z.object({
  machine_types: stringList(nonEmptyString),
  repair_operations: z.array(repairOperation).min(1),
});

/** Slow start per failure domain; each domain at most once. */
const repairPacing = z.strictObject({
  domains: z
    .array(z.enum(PACING_DOMAINS))
    .min(1)
    .refine((domains) => new Set(domains).size === domains.length, { message: "each domain may be listed once" }),
});

const repair = z
  .strictObject({
    repair_procedures: z.array(repairProcedure).default([]),
    max_concurrent_repairs: positiveInt.default(EMPTY_REPAIR_CONFIG.maxConcurrentRepairs),
    protected_namespaces: labelSelector.optional(),
    protected_job_pods: labelSelector.optional(),
    evict_retries: nonNegativeInt.default(EMPTY_REPAIR_CONFIG.evictRetries),
    evict_interval: nonNegativeInt.default(EMPTY_REPAIR_CONFIG.evictInterval),
    eviction_timeout_seconds: positiveInt.default(EMPTY_REPAIR_CONFIG.evictionTimeoutSeconds),
    pacing: repairPacing.optional(),
    escalation: repairEscalation.optional(),
  })
  .superRefine(refuseUnknownEscalation, whenClean);

/** The keys each level of the `repair` section knows (CKE's and kintsugi's), for repairKeyWarnings. */
export const REPAIR_KEYS = {
  repair: Object.keys(repair.shape),
  procedure: Object.keys(repairProcedure.shape),
  operation: Object.keys(repairOperation.shape),
  step: Object.keys(repairStep.shape),
} as const;

type ConstraintValues = Partial<Record<keyof typeof CONSTRAINT_NAMES, number>>;

/** Renames the constraints from CKE's kebab-case names to their camelCase API names, keeping only those given. */
export function camelConstraints(values: ConstraintValues): Partial<Constraints> {
  const result: Partial<Record<keyof Constraints, number>> = {};
  for (const [name, key] of Object.entries(CONSTRAINT_NAMES)) {
    const value = values[name as keyof ConstraintValues];
    if (value !== undefined) result[key] = value;
  }
  return result;
}

// Each at least its minimum, with the reason (CONSTRAINT_MINIMUMS, as the API judges it); any integer where CKE's is.
const constraintShape = Object.fromEntries(
  Object.entries(CONSTRAINT_NAMES).map(([name, key]) => {
    const lowest = CONSTRAINT_MINIMUMS[key];
    return [name, (lowest ? z.int().min(lowest.min, { error: `must be >= ${lowest.min}: ${lowest.why}` }) : z.int()).optional()];
  }),
) as Record<keyof typeof CONSTRAINT_NAMES, z.ZodOptional<z.ZodInt>>;

const constraints = z
  .strictObject(constraintShape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? `unknown constraint; known: ${Object.keys(CONSTRAINT_NAMES).join(", ")}` : undefined),
  })
  .superRefine((values, ctx) => {
    // Judged as a whole against the defaults, so a pair that contradicts itself is refused at load time.
    const result = checkConstraints({ ...DEFAULT_CONSTRAINTS, ...camelConstraints(values) });
    if (!result.ok) ctx.addIssue({ code: "custom", message: result.message });
  }, whenClean);

const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\]|([^\s:[\]]+)):(\d+)$/;

const listen = z.string().transform((text, ctx) => {
  const match = HOST_PORT.exec(text);
  if (!match) {
    ctx.addIssue({ code: "custom", message: 'must be "host:port", e.g. "127.0.0.1:10180" or "[::1]:10180"' });
    return z.NEVER;
  }
  const port = Number(match[3]);
  // Port 0 asks the kernel for any free port (tests, demos); the chosen one is logged at start.
  if (!Number.isSafeInteger(port) || port > 65535) {
    ctx.addIssue({ code: "custom", message: `port must be 0-65535, got ${match[3]}` });
    return z.NEVER;
  }
  // Brackets only delimit an IPv6 address in text; node's listen() takes the bare address.
  return { host: (match[1] ?? match[2]) as string, port };
});

const httpUrl = z.string().refine(
  (text) => {
    try {
      const url = new URL(text);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  },
  { message: 'must be an http or https URL, e.g. "http://127.0.0.1:10080"' },
);

// sabakan's API takes no credentials, and a URL that carries them would be printed wherever the URL is (fetch
// itself refuses such a URL with an error that quotes it whole).
const sabakanUrl = httpUrl.refine((text) => !hasUrlCredentials(text), {
  message: 'must not hold a user name or password ("user:password@"): sabakan takes none, and kintsugi would show them in its logs; remove them',
});

const cronExpression = z.string().superRefine((text, ctx) => {
  const result = cron.validateDetailed(text);
  if (!result.valid) {
    const why = result.errors.map((e) => e.message).join("; ");
    ctx.addIssue({ code: "custom", message: `must be a cron expression of 5 or 6 fields (seconds first): ${why}` });
  }
});

/**
 * The config file as written: CKE's snake_case keys under `repair`, kebab-case constraint names, strict objects,
 * and every default of the `repair` section applied. `listen` is already split into host and port.
 */
export const configFileSchema = z
  .strictObject({
    listen: listen.default({ ...DEFAULT_LISTEN }),
    store: z.enum(["sqlite", "etcd"]).default("sqlite"),
    database: nonEmptyString.default(DEFAULT_DATABASE),
    etcd: etcdSection.optional(),
    leader_election: leaderElectionSection.optional(),
    sabakan: z
      .strictObject({
        url: sabakanUrl,
        schedule: cronExpression.default(DEFAULT_SABAKAN_SCHEDULE),
        cluster_schedule: cronExpression.optional(),
        timeout_seconds: timerSeconds.default(DEFAULT_SABAKAN_TIMEOUT_SECONDS),
        max_response_bytes: positiveInt.default(DEFAULT_SABAKAN_MAX_RESPONSE_BYTES),
        max_concurrent_requests: positiveInt.default(DEFAULT_SABAKAN_MAX_CONCURRENT_REQUESTS),
        worker_selection: z.enum(WORKER_SELECTIONS).default(DEFAULT_WORKER_SELECTION),
        // A taint key has a label key's syntax (Kubernetes' qualified name).
        spare_node_taint_key: z
          .string()
          .superRefine((key, ctx) => {
            const problem = labelKeyProblem(key);
            if (problem) ctx.addIssue({ code: "custom", message: `not a Kubernetes taint key: ${problem}` });
          })
          .optional(),
      })
      .optional(),
    kubernetes: z
      .strictObject({
        kubeconfig: nonEmptyString.optional(),
        timeout_seconds: timerSeconds.default(DEFAULT_KUBERNETES_TIMEOUT_SECONDS),
        max_response_bytes: positiveInt.default(DEFAULT_KUBERNETES_LIMITS.maxResponseBytes),
        // Whole seconds: the API server's timeoutSeconds; a day at most keeps its silence timer within node's range.
        watch_seconds: z.int().gt(0).max(86_400).default(DEFAULT_KUBERNETES_LIMITS.watchSeconds),
      })
      .optional(),
    repair: repair.optional(),
    runner: z
      .strictObject({
        interval_seconds: timerSeconds.default(DEFAULT_RUNNER.intervalSeconds),
        // Defaults to DEFAULT_RUNNER.healthCheckConcurrency (in load-config.ts: either name may give it).
        max_concurrent_health_checks: positiveInt.optional(),
        // The earlier name of max_concurrent_health_checks, still read; giving both is refused below.
        health_check_concurrency: positiveInt.optional(),
        // At least the kill grace, the backstop's slack and the start window: the rest covers clock skew.
        inherited_command_margin_seconds: z.int().min(MIN_INHERITED_COMMAND_MARGIN_SECONDS).max(86_400).default(DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS),
      })
      .superRefine((runner, ctx) => {
        if (runner.health_check_concurrency !== undefined && runner.max_concurrent_health_checks !== undefined)
          ctx.addIssue({
            code: "custom",
            path: ["health_check_concurrency"],
            message: "is the earlier name of runner.max_concurrent_health_checks: give one of them",
          });
      })
      .optional(),
    health_checks: healthChecks.optional(),
    constraints: constraints.optional(),
    limits: limitsSection.optional(),
    poll_records: pollRecordsSection.optional(),
    auth: authSection.optional(),
    tls: tlsSection.optional(),
  })
  .superRefine((file, ctx) => refuseUnknownOperations(file.health_checks ?? [], file.repair?.repair_procedures ?? [], ctx))
  .superRefine(refuseUnreachableProof)
  .superRefine((file, ctx) => requireAuthOffLoopback(file.listen.host, file.auth, ctx))
  .superRefine((file, ctx) => checkClientCertificates(file.auth, file.tls?.client_ca_file, ctx));

/** The validated file, before it is renamed into a KintsugiConfig. */
export type ConfigFile = z.output<typeof configFileSchema>;
export type RepairSection = NonNullable<ConfigFile["repair"]>;
