import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import YAML from "yaml";
import { DEFAULT_CONFIG, type KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { ConfigError, loadConfigFile, parseConfig, parseConfigWithWarnings } from "../../src/config/load-config.js";
import type { RepairConfig } from "../../src/domain/queue/repair-config.js";

const SOURCE = "kintsugi.yaml";

/** Parses `input` (YAML text, or a value written out as YAML) and returns the ConfigError it must throw. */
function rejection(input: string | object): ConfigError {
  const text = typeof input === "string" ? input : YAML.stringify(input);
  try {
    parseConfig(text, SOURCE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected a ConfigError for:\n${text}`);
}

/** `config`'s one operation with one step per watch (each else as oneOperation's). */
function withSteps(watches: readonly number[], config: KintsugiConfig): KintsugiConfig {
  const [procedure] = config.repair.repairProcedures;
  const [operation] = procedure?.repairOperations ?? [];
  assert.ok(procedure && operation);
  const step = operation.repairSteps[0];
  assert.ok(step);
  const repairSteps = watches.map((watchSeconds) => ({ ...step, watchSeconds }));
  return { ...config, repair: { ...config.repair, repairProcedures: [{ ...procedure, repairOperations: [{ ...operation, repairSteps }] }] } };
}

/** `config`'s one operation with its one step watching for `watchSeconds`. */
const withWatch = (watchSeconds: number, config: KintsugiConfig): KintsugiConfig => withSteps([watchSeconds], config);

/** The defaults with one repair operation `op` (type `m`, one step `[r]`, health check `[c]`) and `extra` on it. */
const oneOperation = (extra: Record<string, unknown>): KintsugiConfig => ({
  ...DEFAULT_CONFIG,
  repair: {
    ...DEFAULT_CONFIG.repair,
    repairProcedures: [
      {
        machineTypes: ["m"],
        repairOperations: [
          {
            operation: "op",
            repairSteps: [{ repairCommand: ["r"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 0 }],
            healthCheckCommand: ["c"],
            commandTimeoutSeconds: 30,
            successCommand: null,
            successCommandTimeout: 30,
            ...extra,
          },
        ],
      },
    ],
  },
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The line `<source>: <path>: <message...>` (or `<source>: <message...>` for the file as a whole). */
function line(path: string, message: string): RegExp {
  return new RegExp(`^${escape(SOURCE)}: ${path ? `${escape(path)}: ` : ""}${escape(message)}`, "m");
}

const CKE_EXAMPLE = `
repair:
  repair_procedures:
    - machine_types: ["type1", "type2"]
      repair_operations:
        - operation: "op1"
          repair_steps:
            - repair_command: ["sh", "-c", "touch /tmp/mtest-repair-$1", "repair"]
              need_drain: true
              watch_seconds: 30
            - repair_command: ["sh", "-c", "touch /tmp/mtest-repair2-$1", "repair2"]
              command_timeout_seconds: 60
              command_retries: 3
              command_interval: 5
              watch_seconds: 60
          health_check_command: ["sh", "-c", "test -f /tmp/mtest-repair-$1 && echo true", "health_check"]
          command_timeout_seconds: 10
          success_command: ["sh", "-c", "touch /tmp/mtest-repair-success-$1", "success"]
  max_concurrent_repairs: 2
  protected_namespaces:
    matchLabels:
      app: sample
  evict_retries: 3
  evict_interval: 3
  eviction_timeout_seconds: 30
`;

const CKE_EXAMPLE_REPAIR: RepairConfig = {
  repairProcedures: [
    {
      machineTypes: ["type1", "type2"],
      repairOperations: [
        {
          operation: "op1",
          repairSteps: [
            {
              repairCommand: ["sh", "-c", "touch /tmp/mtest-repair-$1", "repair"],
              commandTimeoutSeconds: 30,
              commandRetries: 0,
              commandInterval: 0,
              needDrain: true,
              watchSeconds: 30,
            },
            {
              repairCommand: ["sh", "-c", "touch /tmp/mtest-repair2-$1", "repair2"],
              commandTimeoutSeconds: 60,
              commandRetries: 3,
              commandInterval: 5,
              needDrain: false,
              watchSeconds: 60,
            },
          ],
          healthCheckCommand: ["sh", "-c", "test -f /tmp/mtest-repair-$1 && echo true", "health_check"],
          commandTimeoutSeconds: 10,
          successCommand: ["sh", "-c", "touch /tmp/mtest-repair-success-$1", "success"],
          successCommandTimeout: 30,
        },
      ],
    },
  ],
  maxConcurrentRepairs: 2,
  protectedNamespaces: { matchLabels: { app: "sample" } },
  protectedJobPods: null,
  evictRetries: 3,
  evictInterval: 3,
  evictionTimeoutSeconds: 30,
};

const FULL_CONFIG = `
listen: "0.0.0.0:8080"
database: "/var/lib/kintsugi/kintsugi.db"
sabakan:
  url: "https://sabakan.example.com:10443/"
  schedule: "0 */5 * * * *"
  cluster_schedule: "30 */10 * * * *"
  timeout_seconds: 5
  max_response_bytes: 1048576
  max_concurrent_requests: 2
  worker_selection: all_healthy
  spare_node_taint_key: node.cybozu.io/spare
kubernetes:
  kubeconfig: "/etc/kintsugi/kubeconfig"
  timeout_seconds: 2.5
  max_response_bytes: 1048576
  watch_seconds: 120
repair:
  repair_procedures:
    - machine_types: ["qemu"]
      repair_operations:
        - operation: "unreachable"
          repair_steps:
            - repair_command: ["reboot"]
          health_check_command: ["check"]
    - machine_types: ["ipmi-2.0"]
      repair_operations:
        - operation: "node-not-ready"
          repair_steps:
            - repair_command: ["power-cycle"]
          health_check_command: ["check"]
  protected_job_pods:
    matchExpressions:
      - key: app.kubernetes.io/name
        operator: In
        values: [batch]
      - key: keep
        operator: Exists
runner:
  interval_seconds: 0.5
  health_check_concurrency: 4
  inherited_command_margin_seconds: 12
health_checks:
  - name: workers
    selector: { matchLabels: { cke.cybozu.com/role: worker } }
    unhealthy_conditions:
      - { type: Ready, status: Unknown, timeout_seconds: 300 }
      - { type: Ready, status: "False", timeout_seconds: 300 }
    max_unhealthy: 40%
    operation: node-not-ready
  - name: storage
    selector: { matchExpressions: [ { key: storage, operator: Exists } ] }
    unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 60 } ]
    unhealthy_range: "[1-2]"
    operation: node-not-ready
    machine_type_label: machine-type
    paused: true
limits:
  max_depth: 20
  max_aliases: 40
  max_directives: 60
  max_tokens: 8000
  max_selections: 3000
  max_variable_depth: 10
  max_cost: 100000
  max_body_bytes: 2097152
  max_connections: 50
  max_connections_per_address: 5
  max_subscriptions_per_connection: 10
  subscription_cache_bytes: 1048576
  headers_timeout_seconds: 5
  request_timeout_seconds: 20
  idle_timeout_seconds: 60
  max_buffered_bytes: 65536
  max_total_buffered_bytes: 1048576
  replay_seconds: 30
constraints:
  maximum-repair-queue-entries: 5
  wait-seconds-to-repair-rebooting: 300
  maximum-unhealthy-machines-per-rack: 2
  control-plane-count: 3
  minimum-workers: 2
  maximum-workers: 10
  wait-seconds-to-replace-control-plane: 600
auth:
  anonymous: viewer
  tokens:
    - { name: ci-bot, role: operator, sha256: "${"AB".repeat(32)}" }
  allowed_origins: ["https://ops.example.com"]
  allowed_hosts: [kintsugi.internal]
`;

const FULL_CONFIG_EXPECTED: KintsugiConfig = {
  ...DEFAULT_CONFIG,
  listen: { host: "0.0.0.0", port: 8080 },
  database: "/var/lib/kintsugi/kintsugi.db",
  sabakan: {
    url: "https://sabakan.example.com:10443",
    schedule: "0 */5 * * * *",
    clusterSchedule: "30 */10 * * * *",
    timeoutSeconds: 5,
    maxResponseBytes: 1048576,
    maxConcurrentRequests: 2,
    selection: { workerSelection: "all_healthy", spareNodeTaintKey: "node.cybozu.io/spare" },
  },
  kubernetes: { kubeconfig: "/etc/kintsugi/kubeconfig", timeoutSeconds: 2.5, maxResponseBytes: 1048576, watchSeconds: 120 },
  runner: { intervalSeconds: 0.5, healthCheckConcurrency: 4, inheritedCommandMarginSeconds: 12 },
  healthChecks: [
    {
      name: "workers",
      selector: { matchLabels: { "cke.cybozu.com/role": "worker" } },
      unhealthyConditions: [
        { type: "Ready", status: "Unknown", timeoutSeconds: 300 },
        { type: "Ready", status: "False", timeoutSeconds: 300 },
      ],
      maxUnhealthy: { kind: "percent", value: 40 },
      unhealthyRange: null,
      operation: "node-not-ready",
      machineType: { from: "sabakan" },
      paused: false,
    },
    {
      name: "storage",
      selector: { matchExpressions: [{ key: "storage", operator: "Exists" }] },
      unhealthyConditions: [{ type: "Ready", status: "Unknown", timeoutSeconds: 60 }],
      maxUnhealthy: { kind: "percent", value: 100 },
      unhealthyRange: { min: 1, max: 2 },
      operation: "node-not-ready",
      machineType: { from: "label", label: "machine-type" },
      paused: true,
    },
  ],
  repair: {
    repairProcedures: [
      {
        machineTypes: ["qemu"],
        repairOperations: [
          {
            operation: "unreachable",
            repairSteps: [
              {
                repairCommand: ["reboot"],
                commandTimeoutSeconds: 30,
                commandRetries: 0,
                commandInterval: 0,
                needDrain: false,
                watchSeconds: 0,
              },
            ],
            healthCheckCommand: ["check"],
            commandTimeoutSeconds: 30,
            successCommand: null,
            successCommandTimeout: 30,
          },
        ],
      },
      {
        machineTypes: ["ipmi-2.0"],
        repairOperations: [
          {
            operation: "node-not-ready",
            repairSteps: [
              { repairCommand: ["power-cycle"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 0 },
            ],
            healthCheckCommand: ["check"],
            commandTimeoutSeconds: 30,
            successCommand: null,
            successCommandTimeout: 30,
          },
        ],
      },
    ],
    maxConcurrentRepairs: 1,
    protectedNamespaces: null,
    protectedJobPods: {
      matchExpressions: [
        { key: "app.kubernetes.io/name", operator: "In", values: ["batch"] },
        { key: "keep", operator: "Exists" },
      ],
    },
    evictRetries: 0,
    evictInterval: 0,
    evictionTimeoutSeconds: 600,
  },
  limits: {
    maxDepth: 20,
    maxAliases: 40,
    maxDirectives: 60,
    maxTokens: 8000,
    maxSelections: 3000,
    maxVariableDepth: 10,
    maxCost: 100000,
    maxBodyBytes: 2097152,
    maxConnections: 50,
    maxConnectionsPerAddress: 5,
    maxSubscriptionsPerConnection: 10,
    subscriptionCacheBytes: 1048576,
    headersTimeoutSeconds: 5,
    requestTimeoutSeconds: 20,
    idleTimeoutSeconds: 60,
    maxBufferedBytes: 65536,
    maxTotalBufferedBytes: 1048576,
    maxResponseBytes: 16777216,
    replaySeconds: 30,
  },
  constraints: {
    maximumRepairQueueEntries: 5,
    waitSecondsToRepairRebooting: 300,
    maximumUnhealthyMachinesPerRack: 2,
    controlPlaneCount: 3,
    minimumWorkers: 2,
    maximumWorkers: 10,
    waitSecondsToReplaceControlPlane: 600,
  },
  auth: {
    anonymous: "viewer",
    tokens: [{ name: "ci-bot", role: "operator", sha256: "ab".repeat(32) }],
    allowedOrigins: ["https://ops.example.com"],
    allowedHosts: ["kintsugi.internal"],
    clientCertificates: [],
  },
  tls: null,
};

describe("parseConfig: valid files", () => {
  const cases: { name: string; text: string; expected: KintsugiConfig }[] = [
    { name: "CKE's documented repair example, defaults applied", text: CKE_EXAMPLE, expected: { ...DEFAULT_CONFIG, repair: CKE_EXAMPLE_REPAIR } },
    { name: "an empty file", text: "", expected: DEFAULT_CONFIG },
    { name: "only comments and blank lines", text: "# nothing here\n\n", expected: DEFAULT_CONFIG },
    { name: "an empty mapping", text: "{}", expected: DEFAULT_CONFIG },
    { name: "an empty repair section", text: "repair: {}", expected: DEFAULT_CONFIG },
    { name: "empty values count as absent", text: "listen:\nsabakan:\nrepair:\n  max_concurrent_repairs:\n", expected: DEFAULT_CONFIG },
    { name: "a full config", text: FULL_CONFIG, expected: FULL_CONFIG_EXPECTED },
    {
      name: "an IPv6 listen address loses its brackets",
      text: 'listen: "[::1]:10180"',
      expected: { ...DEFAULT_CONFIG, listen: { host: "::1", port: 10180 } },
    },
    {
      name: "a host name listen address",
      text: "listen: localhost:1",
      expected: { ...DEFAULT_CONFIG, listen: { host: "localhost", port: 1 } },
    },
    {
      name: "sabakan url kept as given, schedule and bounds defaulted",
      text: "sabakan: { url: http://127.0.0.1:10080 }",
      expected: {
        ...DEFAULT_CONFIG,
        sabakan: {
          url: "http://127.0.0.1:10080",
          schedule: "*/60 * * * * *",
          timeoutSeconds: 30,
          maxResponseBytes: 67108864,
          maxConcurrentRequests: 4,
          selection: { workerSelection: "weighted", spareNodeTaintKey: null },
        },
      },
    },
    {
      name: "an empty kubernetes section means in-cluster config, with a 10 s timeout per request, 64 MiB answers and 5-minute watches",
      text: "kubernetes: {}",
      expected: { ...DEFAULT_CONFIG, kubernetes: { kubeconfig: null, timeoutSeconds: 10, maxResponseBytes: 67108864, watchSeconds: 300 } },
    },
    {
      name: "runner.max_concurrent_health_checks bounds the health checks at once, 32 when neither it nor its earlier name is given",
      text: "runner: { max_concurrent_health_checks: 8 }",
      expected: { ...DEFAULT_CONFIG, runner: { intervalSeconds: 10, healthCheckConcurrency: 8, inheritedCommandMarginSeconds: 10 } },
    },
    {
      name: "a runner section without the bound keeps 32 health checks at once",
      text: "runner: { interval_seconds: 5 }",
      expected: { ...DEFAULT_CONFIG, runner: { intervalSeconds: 5, healthCheckConcurrency: 32, inheritedCommandMarginSeconds: 10 } },
    },
    {
      name: "limits keep their defaults for the keys not given",
      text: "limits: { max_depth: 9, idle_timeout_seconds: 0.5 }",
      expected: { ...DEFAULT_CONFIG, limits: { ...DEFAULT_CONFIG.limits, maxDepth: 9, idleTimeoutSeconds: 0.5 } },
    },
    {
      name: "an operation's diagnostics_command, with its timeout defaulted to 30 s",
      text: "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r] } ], health_check_command: [c], diagnostics_command: [collect-sel, -v] } ] } ] }",
      expected: oneOperation({ diagnosticsCommand: ["collect-sel", "-v"], diagnosticsTimeoutSeconds: 30 }),
    },
    {
      name: "an operation's success_requires and success_dwell_seconds become its proof of repair",
      text: "kubernetes: {}\nrepair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r], watch_seconds: 120 } ], health_check_command: [c], success_requires: [boot_id_changed, node_ready], success_dwell_seconds: 120 } ] } ] }",
      expected: withWatch(120, {
        ...oneOperation({ successProof: { requires: ["boot_id_changed", "node_ready"], dwellSeconds: 120 } }),
        kubernetes: { kubeconfig: null, timeoutSeconds: 10, maxResponseBytes: 67108864, watchSeconds: 300 },
      }),
    },
    {
      name: "a dwell as long as the longest watch of its steps (not the first) fits it",
      text: "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r], watch_seconds: 60 }, { repair_command: [r], watch_seconds: 300 } ], health_check_command: [c], success_dwell_seconds: 300 } ] } ] }",
      expected: withSteps([60, 300], oneOperation({ successProof: { requires: [], dwellSeconds: 300 } })),
    },
    {
      name: "a dwell longer than every watch of its steps loads: a running dwell holds the watch open, so it can prove a repair",
      text: "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r], watch_seconds: 60 }, { repair_command: [r], watch_seconds: 300 } ], health_check_command: [c], success_dwell_seconds: 301 } ] } ] }",
      expected: withSteps([60, 300], oneOperation({ successProof: { requires: [], dwellSeconds: 301 } })),
    },
    {
      name: "a dwell with steps that never watch loads: the dwell starts at the first healthy pass after the command and holds the watch",
      text: "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r] } ], health_check_command: [c], success_dwell_seconds: 1 } ] } ] }",
      expected: oneOperation({ successProof: { requires: [], dwellSeconds: 1 } }),
    },
    {
      name: "sabakan_healthy with a sabakan section",
      text: "sabakan: { url: http://s }\nrepair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r] } ], health_check_command: [c], success_requires: [sabakan_healthy] } ] } ] }",
      expected: {
        ...oneOperation({ successProof: { requires: ["sabakan_healthy"], dwellSeconds: 0 } }),
        sabakan: {
          url: "http://s",
          schedule: "*/60 * * * * *",
          timeoutSeconds: 30,
          maxResponseBytes: 67108864,
          maxConcurrentRequests: 4,
          selection: { workerSelection: "weighted", spareNodeTaintKey: null },
        },
      },
    },
    {
      name: "success_dwell_seconds alone asks for a dwell of the health check, with no other signal",
      text: "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: op, repair_steps: [ { repair_command: [r] } ], health_check_command: [c], success_dwell_seconds: 0 } ] } ] }",
      expected: oneOperation({ successProof: { requires: [], dwellSeconds: 0 } }),
    },
    {
      name: "constraints keep only the names given",
      text: "constraints: { maximum-repair-queue-entries: 10, minimum-workers: 3 }",
      expected: { ...DEFAULT_CONFIG, constraints: { maximumRepairQueueEntries: 10, minimumWorkers: 3 } },
    },
    {
      name: "repair.escalation in the domain's shape; without an operation, null (hold)",
      text: "repair: { escalation: { max_repairs: 3, window_seconds: 86400 } }",
      expected: { ...DEFAULT_CONFIG, repair: { ...DEFAULT_CONFIG.repair, escalation: { maxRepairs: 3, windowSeconds: 86400, operation: null } } },
    },
    {
      name: "repair.pacing keeps its domains in order",
      text: "repair: { pacing: { domains: [machine_type, rack] } }",
      expected: { ...DEFAULT_CONFIG, repair: { ...DEFAULT_CONFIG.repair, pacing: { domains: ["machine_type", "rack"] } } },
    },
  ];
  for (const { name, text, expected } of cases) {
    it(name, () => {
      assert.deepEqual(parseConfig(text, SOURCE), expected);
    });
  }
});

// A valid procedure; `withStep` puts the step under test at operations[1].steps[0].
const STEP = { repair_command: ["reboot"] };
const operation = (patch: object = {}) => ({ operation: "op", repair_steps: [STEP], health_check_command: ["check"], ...patch });
const procedure = (patch: object = {}) => ({ machine_types: ["t1"], repair_operations: [operation()], ...patch });
const withProcedure = (patch: object) => ({ repair: { repair_procedures: [procedure(patch)] } });
const withOperation = (patch: object) => withProcedure({ repair_operations: [operation(), operation(patch)] });
const withStep = (patch: object) => withOperation({ repair_steps: [{ ...STEP, ...patch }] });
const OP = "repair.repair_procedures[0].repair_operations[1]";
// Two procedures, neither with node-not-ready.
const HEALTH_CHECK_REPAIR = `repair:
  repair_procedures:
    - { machine_types: [a], repair_operations: [ { operation: unreachable, repair_steps: [ { repair_command: [r] } ], health_check_command: [c] } ] }
    - { machine_types: [b], repair_operations: [ { operation: reboot, repair_steps: [ { repair_command: [r] } ], health_check_command: [c] } ] }`;
const STEP_PATH = `${OP}.repair_steps[0]`;

describe("parseConfig: each rule rejects with the key path", () => {
  const cases: { name: string; input: string | object; path: string; message: string }[] = [
    { name: "watch_seconds < 0", input: withStep({ watch_seconds: -1 }), path: `${STEP_PATH}.watch_seconds`, message: "must be >= 0" },
    {
      name: "step command_timeout_seconds < 0",
      input: withStep({ command_timeout_seconds: -5 }),
      path: `${STEP_PATH}.command_timeout_seconds`,
      message: "must be >= 0",
    },
    { name: "command_retries < 0", input: withStep({ command_retries: -1 }), path: `${STEP_PATH}.command_retries`, message: "must be >= 0" },
    {
      name: "command_interval not an integer",
      input: withStep({ command_interval: 1.5 }),
      path: `${STEP_PATH}.command_interval`,
      message: "must be an integer, got 1.5",
    },
    {
      name: "need_drain not a boolean",
      input: withStep({ need_drain: "yes" }),
      path: `${STEP_PATH}.need_drain`,
      message: 'must be a boolean (true or false), got "yes"',
    },
    {
      name: "health check command_timeout_seconds < 0",
      input: withOperation({ command_timeout_seconds: -1 }),
      path: `${OP}.command_timeout_seconds`,
      message: "must be >= 0",
    },
    {
      name: "success_command_timeout < 0",
      input: withOperation({ success_command_timeout: -1 }),
      path: `${OP}.success_command_timeout`,
      message: "must be >= 0",
    },
    { name: "max_concurrent_repairs = 0", input: { repair: { max_concurrent_repairs: 0 } }, path: "repair.max_concurrent_repairs", message: "must be > 0" },
    {
      name: "max_concurrent_repairs as a string",
      input: 'repair: { max_concurrent_repairs: "2" }',
      path: "repair.max_concurrent_repairs",
      message: 'must be an integer, got "2"',
    },
    { name: "evict_retries < 0", input: { repair: { evict_retries: -1 } }, path: "repair.evict_retries", message: "must be >= 0" },
    { name: "pacing with no domains", input: { repair: { pacing: { domains: [] } } }, path: "repair.pacing.domains", message: "must be a non-empty list" },
    {
      name: "pacing by an unknown domain",
      input: { repair: { pacing: { domains: ["row"] } } },
      path: "repair.pacing.domains[0]",
      message: 'must be one of rack, machine_type, got "row"',
    },
    {
      name: "escalation without max_repairs",
      input: { repair: { escalation: { window_seconds: 3600 } } },
      path: "repair.escalation.max_repairs",
      message: "is required",
    },
    {
      name: "escalation with max_repairs = 0",
      input: { repair: { escalation: { max_repairs: 0, window_seconds: 3600 } } },
      path: "repair.escalation.max_repairs",
      message: "must be > 0",
    },
    {
      name: "escalation with a window of 0",
      input: { repair: { escalation: { max_repairs: 3, window_seconds: 0 } } },
      path: "repair.escalation.window_seconds",
      message: "must be > 0",
    },
    {
      name: "escalation under an unknown key",
      input: { repair: { escalation: { max_repairs: 3, window_seconds: 60, then: "retire" } } },
      path: "repair.escalation.then",
      message: "unknown key",
    },
    {
      name: "escalation to an operation no procedure has",
      input: `${HEALTH_CHECK_REPAIR}\n  escalation: { max_repairs: 3, window_seconds: 86400, operation: retire }`,
      path: "repair.escalation.operation",
      message: 'operation "retire" is not a repair operation of any repair procedure (known: unreachable, reboot)',
    },
    {
      name: "pacing by one domain twice",
      input: { repair: { pacing: { domains: ["rack", "rack"] } } },
      path: "repair.pacing.domains",
      message: "each domain may be listed once",
    },
    { name: "evict_interval < 0", input: { repair: { evict_interval: -1 } }, path: "repair.evict_interval", message: "must be >= 0" },
    {
      name: "eviction_timeout_seconds = 0",
      input: { repair: { eviction_timeout_seconds: 0 } },
      path: "repair.eviction_timeout_seconds",
      message: "must be > 0",
    },
    {
      name: "health check max_unhealthy over 100%",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o, max_unhealthy: 120% } ]",
      path: "health_checks[0].max_unhealthy",
      message: 'check "w": must be an integer >= 0 or a percentage from 0% to 100%, got "120%"',
    },
    {
      name: "health check range max < min",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o, unhealthy_range: '[3-1]' } ]",
      path: "health_checks[0].unhealthy_range",
      message: 'check "w": must be "[min-max]" with min <= max, got "[3-1]"',
    },
    {
      name: "health check empty selector",
      input: "health_checks: [ { name: w, selector: {}, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o } ]",
      path: "health_checks[0].selector",
      message: 'check "w": must not be empty',
    },
    {
      name: "health check bad selector",
      input:
        "health_checks: [ { name: w, selector: { matchExpressions: [ { key: a, operator: In } ] }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o } ]",
      path: "health_checks[0].selector.matchExpressions[0].values",
      message: "must be non-empty when operator is In",
    },
    {
      name: "health check without conditions",
      input: "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [], operation: o } ]",
      path: "health_checks[0].unhealthy_conditions",
      message: "must be a non-empty list",
    },
    {
      name: "health check duplicate name",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o }, { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: o } ]",
      path: "health_checks[1].name",
      message: 'check "w": the name is used twice',
    },
    {
      name: "health check negative timeout",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: -1 } ], operation: o } ]",
      path: "health_checks[0].unhealthy_conditions[0].timeout_seconds",
      message: "must be >= 0",
    },
    {
      name: "health check operation that no procedure has",
      input: `${HEALTH_CHECK_REPAIR}\nhealth_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: node-not-ready } ]`,
      path: "health_checks[0].operation",
      message: 'check "w": operation "node-not-ready" is not a repair operation of any repair procedure (known: unreachable, reboot)',
    },
    {
      name: "health check operation without any procedure",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: Unknown, timeout_seconds: 1 } ], operation: node-not-ready } ]",
      path: "health_checks[0].operation",
      message: 'check "w": operation "node-not-ready" is not a repair operation of any repair procedure (repair.repair_procedures has none)',
    },
    { name: "runner.interval_seconds = 0", input: { runner: { interval_seconds: 0 } }, path: "runner.interval_seconds", message: "must be > 0" },
    {
      name: "runner.inherited_command_margin_seconds below the kill grace, backstop slack and start window",
      input: { runner: { inherited_command_margin_seconds: 5 } },
      path: "runner.inherited_command_margin_seconds",
      message: "must be >= 6",
    },
    {
      name: "runner.health_check_concurrency = 0",
      input: { runner: { health_check_concurrency: 0 } },
      path: "runner.health_check_concurrency",
      message: "must be > 0",
    },
    {
      name: "runner.max_concurrent_health_checks = 0",
      input: { runner: { max_concurrent_health_checks: 0 } },
      path: "runner.max_concurrent_health_checks",
      message: "must be > 0",
    },
    {
      name: "runner.max_concurrent_health_checks with its earlier name",
      input: { runner: { max_concurrent_health_checks: 8, health_check_concurrency: 8 } },
      path: "runner.health_check_concurrency",
      message: "is the earlier name of runner.max_concurrent_health_checks: give one of them",
    },
    { name: "unknown key under runner", input: { runner: { tick: 1 } }, path: "runner.tick", message: "unknown key" },
    {
      name: "empty machine_types",
      input: withProcedure({ machine_types: [] }),
      path: "repair.repair_procedures[0].machine_types",
      message: "must be a non-empty list",
    },
    {
      name: "missing machine_types",
      input: "repair: { repair_procedures: [ {} ] }",
      path: "repair.repair_procedures[0].machine_types",
      message: "is required",
    },
    {
      name: "empty repair_operations",
      input: withProcedure({ repair_operations: [] }),
      path: "repair.repair_procedures[0].repair_operations",
      message: "must be a non-empty list",
    },
    { name: "empty operation name", input: withOperation({ operation: "" }), path: `${OP}.operation`, message: "must not be empty" },
    { name: "empty repair_steps", input: withOperation({ repair_steps: [] }), path: `${OP}.repair_steps`, message: "must be a non-empty list" },
    { name: "empty repair_command", input: withStep({ repair_command: [] }), path: `${STEP_PATH}.repair_command`, message: "must be a non-empty list" },
    {
      name: "repair_command as one string",
      input: withStep({ repair_command: "reboot now" }),
      path: `${STEP_PATH}.repair_command`,
      message: 'must be a list of strings, got "reboot now"',
    },
    {
      name: "a command argument that is a number",
      input: withStep({ repair_command: ["sleep", 10] }),
      path: `${STEP_PATH}.repair_command[1]`,
      message: "must be a string, got 10",
    },
    {
      name: "an empty command name",
      input: withStep({ repair_command: ["", "x"] }),
      path: `${STEP_PATH}.repair_command[0]`,
      message: "the command name must not be empty",
    },
    {
      name: "empty health_check_command",
      input: withOperation({ health_check_command: [] }),
      path: `${OP}.health_check_command`,
      message: "must be a non-empty list",
    },
    {
      name: "empty diagnostics_command",
      input: withOperation({ diagnostics_command: [] }),
      path: `${OP}.diagnostics_command`,
      message: "must be a non-empty list",
    },
    {
      name: "diagnostics_command as one string",
      input: withOperation({ diagnostics_command: "ipmitool sel list" }),
      path: `${OP}.diagnostics_command`,
      message: 'must be a list of strings, got "ipmitool sel list"',
    },
    {
      name: "diagnostics_timeout_seconds < 0",
      input: withOperation({ diagnostics_timeout_seconds: -1 }),
      path: `${OP}.diagnostics_timeout_seconds`,
      message: "must be >= 0",
    },
    {
      name: "success_requires with an unknown signal",
      input: withOperation({ success_requires: ["node_ready", "pingable"] }),
      path: `${OP}.success_requires[1]`,
      message: 'must be one of node_ready, boot_id_changed, sabakan_healthy, got "pingable"',
    },
    {
      name: "success_requires with a signal twice",
      input: withOperation({ success_requires: ["node_ready", "node_ready"] }),
      path: `${OP}.success_requires`,
      message: "each signal may be listed once",
    },
    { name: "empty success_requires", input: withOperation({ success_requires: [] }), path: `${OP}.success_requires`, message: "must be a non-empty list" },
    { name: "success_dwell_seconds < 0", input: withOperation({ success_dwell_seconds: -5 }), path: `${OP}.success_dwell_seconds`, message: "must be >= 0" },
    {
      name: "sabakan_healthy without a sabakan section",
      input: withOperation({ success_requires: ["node_ready", "sabakan_healthy"] }),
      path: `${OP}.success_requires[1]`,
      message:
        'operation "op": success_requires sabakan_healthy can never hold without a sabakan section: add a sabakan section (sabakan.url), or remove the signal',
    },
    {
      name: "node_ready without a kubernetes section",
      input: { sabakan: { url: "http://s" }, ...withOperation({ success_requires: ["sabakan_healthy", "node_ready"] }) },
      path: `${OP}.success_requires[1]`,
      message:
        'operation "op": success_requires node_ready can never hold without a kubernetes section: add a kubernetes section (kubernetes: {} uses the Pod\'s in-cluster credentials), or remove the signal',
    },
    {
      name: "boot_id_changed without a kubernetes section",
      input: withOperation({ success_requires: ["boot_id_changed"] }),
      path: `${OP}.success_requires[0]`,
      message: 'operation "op": success_requires boot_id_changed can never hold without a kubernetes section',
    },
    { name: "empty success_command", input: withOperation({ success_command: [] }), path: `${OP}.success_command`, message: "must be a non-empty list" },
    { name: "unknown key at the top level", input: "lisen: 127.0.0.1:10180", path: "lisen", message: "unknown key (did you mean listen?)" },
    { name: "an unknown key near no known one", input: "colour: blue", path: "colour", message: "unknown key" },
    {
      name: "a misspelt key of the repair mapping is refused, naming the key it is nearest to",
      input: { repair: { max_concurent_repairs: 2 } },
      path: "repair.max_concurent_repairs",
      message: "unknown key (did you mean max_concurrent_repairs?)",
    },
    {
      name: "an unquoted YAML False where one of strings is expected: quote it",
      input:
        "health_checks: [ { name: w, selector: { matchLabels: { a: b } }, unhealthy_conditions: [ { type: Ready, status: False, timeout_seconds: 1 } ], operation: op } ]",
      path: "health_checks[0].unhealthy_conditions[0].status",
      message: 'must be one of True, False, Unknown, got false (YAML reads it unquoted as a boolean: quote it, "False")',
    },
    {
      name: "an unquoted YAML true where a string is expected: quote it",
      input:
        "repair: { repair_procedures: [ { machine_types: [m], repair_operations: [ { operation: True, repair_steps: [ { repair_command: [r] } ], health_check_command: [c] } ] } ] }",
      path: `${OP}.operation`.replace("[1]", "[0]"),
      message: "must be a string, got true (YAML reads it unquoted as a boolean: quote it)",
    },
    {
      name: "a YAML 1.1 yes where a boolean is expected: write true",
      input: withStep({ need_drain: "yes" }),
      path: `${OP}.repair_steps[0].need_drain`,
      message: 'must be a boolean (true or false), got "yes" (YAML 1.2 reads yes as a string, not a boolean: write true)',
    },
    { name: "listen without a port", input: "listen: localhost", path: "listen", message: 'must be "host:port"' },
    { name: "listen port too large", input: 'listen: "127.0.0.1:65536"', path: "listen", message: "port must be 0-65535, got 65536" },
    { name: "listen IPv6 without brackets", input: 'listen: "::1:10180"', path: "listen", message: 'must be "host:port"' },
    { name: "listen as a number", input: "listen: 10180", path: "listen", message: "must be a string, got 10180" },
    { name: "empty database", input: 'database: ""', path: "database", message: "must not be empty" },
    { name: "sabakan url not http", input: "sabakan: { url: ftp://sabakan:21 }", path: "sabakan.url", message: "must be an http or https URL" },
    { name: "sabakan url not a URL", input: "sabakan: { url: sabakan }", path: "sabakan.url", message: "must be an http or https URL" },
    {
      name: "sabakan url with a user and a password",
      input: "sabakan: { url: 'http://kintsugi:SECRET-pw@sabakan:10080' }",
      path: "sabakan.url",
      message: 'must not hold a user name or password ("user:password@"): sabakan takes none',
    },
    {
      name: "sabakan url with a user name only",
      input: "sabakan: { url: 'https://kintsugi@sabakan' }",
      path: "sabakan.url",
      message: "must not hold a user name or password",
    },
    {
      name: "sabakan url with an @ in its password",
      input: "sabakan: { url: 'http://u:SECRET@pw@sabakan' }",
      path: "sabakan.url",
      message: "must not hold a user name or password",
    },
    { name: "sabakan without url", input: "sabakan: { schedule: '* * * * *' }", path: "sabakan.url", message: "is required" },
    {
      name: "sabakan worker_selection unknown",
      input: "sabakan: { url: http://s, worker_selection: random }",
      path: "sabakan.worker_selection",
      message: 'must be one of weighted, all_healthy, got "random"',
    },
    {
      name: "sabakan spare_node_taint_key not a taint key",
      input: "sabakan: { url: http://s, spare_node_taint_key: 'a b' }",
      path: "sabakan.spare_node_taint_key",
      message: 'not a Kubernetes taint key: invalid label key "a b"',
    },
    {
      name: "sabakan spare_node_taint_key empty",
      input: "sabakan: { url: http://s, spare_node_taint_key: '' }",
      path: "sabakan.spare_node_taint_key",
      message: "not a Kubernetes taint key",
    },
    {
      name: "sabakan schedule not cron",
      input: "sabakan: { url: http://s, schedule: hourly }",
      path: "sabakan.schedule",
      message: "must be a cron expression of 5 or 6 fields",
    },
    {
      name: "sabakan cluster_schedule not cron",
      input: "sabakan: { url: http://s, cluster_schedule: often }",
      path: "sabakan.cluster_schedule",
      message: "must be a cron expression of 5 or 6 fields",
    },
    {
      name: "sabakan schedule second out of range",
      input: "sabakan: { url: http://s, schedule: '61 * * * * *' }",
      path: "sabakan.schedule",
      message: "must be a cron expression of 5 or 6 fields (seconds first): 61 is a invalid expression for second",
    },
    { name: "sabakan timeout 0", input: "sabakan: { url: http://s, timeout_seconds: 0 }", path: "sabakan.timeout_seconds", message: "must be > 0" },
    {
      name: "sabakan max_response_bytes 0",
      input: "sabakan: { url: http://s, max_response_bytes: 0 }",
      path: "sabakan.max_response_bytes",
      message: "must be > 0",
    },
    { name: "empty kubeconfig", input: 'kubernetes: { kubeconfig: "" }', path: "kubernetes.kubeconfig", message: "must not be empty" },
    { name: "kubernetes timeout 0", input: "kubernetes: { timeout_seconds: 0 }", path: "kubernetes.timeout_seconds", message: "must be > 0" },
    { name: "kubernetes timeout negative", input: "kubernetes: { timeout_seconds: -1 }", path: "kubernetes.timeout_seconds", message: "must be > 0" },
    {
      name: "kubernetes timeout not a number",
      input: "kubernetes: { timeout_seconds: soon }",
      path: "kubernetes.timeout_seconds",
      message: 'must be an integer, got "soon"',
    },
    {
      name: "selector operator unknown",
      input: "repair: { protected_namespaces: { matchExpressions: [ { key: app, operator: Equals, values: [a] } ] } }",
      path: "repair.protected_namespaces.matchExpressions[0].operator",
      message: 'must be one of In, NotIn, Exists, DoesNotExist, got "Equals"',
    },
    {
      name: "selector In without values",
      input: "repair: { protected_job_pods: { matchExpressions: [ { key: app, operator: In } ] } }",
      path: "repair.protected_job_pods.matchExpressions[0].values",
      message: "must be non-empty when operator is In",
    },
    {
      name: "selector Exists with values",
      input: "repair: { protected_namespaces: { matchExpressions: [ { key: app, operator: Exists, values: [a] } ] } }",
      path: "repair.protected_namespaces.matchExpressions[0].values",
      message: "must be empty when operator is Exists",
    },
    {
      name: "selector label value invalid",
      input: "repair: { protected_namespaces: { matchLabels: { app: 'a b' } } }",
      path: "repair.protected_namespaces.matchLabels.app",
      message: 'invalid label value "a b"',
    },
    {
      name: "selector unknown key",
      input: "repair: { protected_namespaces: { matchLabel: { app: a } } }",
      path: "repair.protected_namespaces.matchLabel",
      message: "unknown key",
    },
    {
      name: "unknown constraint name",
      input: "constraints: { maximum-queue-entries: 1 }",
      path: "constraints.maximum-queue-entries",
      message: "unknown constraint; known: control-plane-count, minimum-workers-rate, maximum-unreachable-nodes-for-reboot, maximum-repair-queue-entries,",
    },
    {
      name: "negative constraint",
      input: "constraints: { wait-seconds-to-repair-rebooting: -1 }",
      path: "constraints.wait-seconds-to-repair-rebooting",
      message: "must be >= 0: a negative wait would repair a rebooting machine at once (it does not mean forever)",
    },
    {
      name: "negative control-plane grace",
      input: "constraints: { wait-seconds-to-replace-control-plane: -1 }",
      path: "constraints.wait-seconds-to-replace-control-plane",
      message: "must be >= 0: 0 replaces at once; a negative wait has no meaning",
    },
    {
      name: "minimum-workers-rate takes any integer, as CKE's does, but not a fraction",
      input: "constraints: { minimum-workers-rate: 12.5 }",
      path: "constraints.minimum-workers-rate",
      message: "must be an integer, got 12.5",
    },
    {
      name: "maximum-workers < minimum-workers",
      input: "constraints: { minimum-workers: 5, maximum-workers: 3 }",
      path: "constraints",
      message: "maximum-workers (3) must be 0 (unlimited) or >= minimum-workers (5)",
    },
    {
      name: "control-plane-count 0",
      input: "constraints: { control-plane-count: 0 }",
      path: "constraints.control-plane-count",
      message: "must be >= 1: a cluster without a control plane cannot run",
    },
    { name: "a limit of zero", input: "limits: { max_cost: 0 }", path: "limits.max_cost", message: "must be > 0" },
    { name: "no selections allowed", input: "limits: { max_selections: 0 }", path: "limits.max_selections", message: "must be > 0" },
    {
      name: "a fractional variable depth",
      input: "limits: { max_variable_depth: 2.5 }",
      path: "limits.max_variable_depth",
      message: "must be an integer, got 2.5",
    },
    {
      name: "a limit that is not a whole number",
      input: "limits: { max_subscriptions_per_connection: 1.5 }",
      path: "limits.max_subscriptions_per_connection",
      message: "must be an integer, got 1.5",
    },
    { name: "an unknown limit", input: "limits: { max_width: 3 }", path: "limits.max_width", message: "unknown key" },
    {
      name: "a headers timeout past the request timeout",
      input: "limits: { headers_timeout_seconds: 40 }",
      path: "limits.headers_timeout_seconds",
      message: "must not be longer than limits.request_timeout_seconds (node requires it)",
    },
    { name: "malformed YAML", input: "listen: 127.0.0.1:10180\nrepair:\n  evict_retries: [1\n", path: "", message: "invalid YAML at line 4, column 1: " },
    { name: "a duplicate key", input: "database: a\ndatabase: b\n", path: "", message: "invalid YAML at line 2, column 1: Map keys must be unique" },
    { name: "a top level that is a list", input: "- listen: 127.0.0.1:10180\n", path: "", message: "the top level must be a mapping of keys, got a list" },
    { name: "a top level that is a scalar", input: "kintsugi\n", path: "", message: 'the top level must be a mapping of keys, got string "kintsugi"' },
  ];
  for (const { name, input, path, message } of cases) {
    it(name, () => {
      const error = rejection(input);
      assert.match(error.message, line(path, message));
      assert.ok(
        error.problems.some((p) => p.path === path && p.message.startsWith(message)),
        `no problem {path: ${path}, message: ${message}...} in ${JSON.stringify(error.problems)}`,
      );
    });
  }

  it("the message format is fixed", () => {
    assert.match(
      rejection(withStep({ watch_seconds: -1 })).message,
      /^kintsugi\.yaml: repair\.repair_procedures\[0\]\.repair_operations\[1\]\.repair_steps\[0\]\.watch_seconds: must be >= 0$/,
    );
  });
});

describe("parseConfig: no message shows the password of a URL", () => {
  const url = "http://kintsugi:SECRET-pw@sabakan:10080";
  const cases: ReadonlyArray<{ name: string; input: string; shows: string }> = [
    { name: "as sabakan.url", input: `sabakan: { url: "${url}" }`, shows: "sabakan.url: must not hold a user name or password" },
    { name: "as the sabakan section", input: `sabakan: "${url}"`, shows: 'sabakan: must be a mapping, got "http://***@sabakan:10080"' },
    { name: "as a number", input: `kubernetes: { timeout_seconds: "${url}/graphql" }`, shows: 'must be an integer, got "http://***@sabakan:10080/graphql"' },
    { name: "as an unknown key", input: `"${url}": 1`, shows: "http://***@sabakan:10080: unknown key" },
  ];
  for (const { name, input, shows } of cases) {
    it(name, () => {
      const error = rejection(input);
      assert.ok(error.message.includes(shows), error.message);
      assert.doesNotMatch(error.message, /SECRET/);
      assert.doesNotMatch(JSON.stringify(error.problems), /SECRET/);
    });
  }
});

describe("parseConfig: every problem is reported", () => {
  it("lists each problem on its own line, in file order", () => {
    const error = rejection(`
listen: nowhere
database: ""
repair:
  max_concurrent_repairs: 0
  evict_retries: -2
  pacing: { domains: [rack], bogus: 1 }
constraints:
  minimum-workers: -1
`);
    const expected = [
      { path: "listen", message: 'must be "host:port", e.g. "127.0.0.1:10180" or "[::1]:10180"' },
      { path: "database", message: "must not be empty" },
      { path: "repair.max_concurrent_repairs", message: "must be > 0" },
      { path: "repair.evict_retries", message: "must be >= 0" },
      { path: "repair.pacing.bogus", message: "unknown key" },
      { path: "constraints.minimum-workers", message: "must be >= 0: a number of workers cannot be negative" },
    ];
    assert.deepEqual(error.problems, expected);
    assert.equal(error.message, expected.map((p) => `${SOURCE}: ${p.path}: ${p.message}`).join("\n"));
  });
});

describe("loadConfigFile", () => {
  it("reads and parses the file, naming it in messages", () => {
    const dir = mkdtempSync(join(tmpdir(), "kintsugi-config-"));
    try {
      const good = join(dir, "good.yaml");
      writeFileSync(good, CKE_EXAMPLE);
      assert.deepEqual(loadConfigFile(good).repair, CKE_EXAMPLE_REPAIR);
      const bad = join(dir, "bad.yaml");
      writeFileSync(bad, "repair: { evict_interval: -1 }\n");
      assert.throws(() => loadConfigFile(bad), { name: "ConfigError", message: `${bad}: repair.evict_interval: must be >= 0` });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a missing file is an error naming the path", () => {
    const missing = join(tmpdir(), "kintsugi-no-such-dir", "kintsugi.yaml");
    assert.throws(
      () => loadConfigFile(missing),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.message, `${missing}: cannot read the config file: no such file`);
        return true;
      },
    );
  });
});

// CKE's repair procedures are read as CKE reads them: unknown keys are ignored, with a warning naming each and the
// key it is nearest to (CKE's own mtest/cke-cluster.yml writes success_command_timeout_seconds for
// success_command_timeout); the repair mapping itself and kintsugi's own sections, pacing and escalation among them,
// stay strict (see the refusals above).
describe("parseConfigWithWarnings: CKE's repair section", () => {
  it("loads CKE's mtest cluster.yml repair section, warning about the key CKE ignores", () => {
    const text = `repair:
  repair_procedures:
  - machine_types: ["type1"]
    repair_operations:
    - operation: "op1"
      repair_steps:
      - repair_command: ["sh", "-c", "touch /tmp/mtest-repair-$1", "repair"]
        command_timeout_seconds: 30
        need_drain: true
        watch_seconds: 30
      success_command: ["sh", "-c", "touch /tmp/mtest-repair-success-$1", "success"]
      success_command_timeout_seconds: 30
      health_check_command: ["sh", "-c", "test -f /tmp/mtest-repair-$1 && echo true", "health_check"]
`;
    const { config, warnings } = parseConfigWithWarnings(text, SOURCE);
    assert.deepEqual(warnings, [
      {
        path: "repair.repair_procedures[0].repair_operations[0].success_command_timeout_seconds",
        message: "unknown key, ignored as CKE ignores it (did you mean success_command_timeout?)",
      },
    ]);
    const op = config.repair.repairProcedures[0]?.repairOperations[0];
    assert.equal(op?.operation, "op1");
    assert.deepEqual(op?.successCommand, ["sh", "-c", "touch /tmp/mtest-repair-success-$1", "success"]);
    assert.equal(op?.successCommandTimeout, 30, "the default, as CKE's DefaultRepairSuccessCommandTimeoutSeconds");
  });

  const cases: Array<{ name: string; input: string | object; warnings: string[] }> = [
    { name: "a known file warns of nothing", input: withStep({ need_drain: true }), warnings: [] },
    { name: "a misspelt step key", input: withStep({ need_drian: true }), warnings: [`${STEP_PATH}.need_drian`] },
    {
      name: "unknown keys at every level of the section",
      input: {
        repair: {
          repair_procedures: [
            {
              machine_types: ["m"],
              vendor: "x",
              repair_operations: [{ operation: "op", repair_steps: [{ repair_command: ["r"], retries: 2 }], health_check_command: ["c"], notes: "n" }],
            },
          ],
        },
      },
      warnings: [
        "repair.repair_procedures[0].vendor",
        "repair.repair_procedures[0].repair_operations[0].notes",
        "repair.repair_procedures[0].repair_operations[0].repair_steps[0].retries",
      ],
    },
    { name: "no repair section", input: "listen: 127.0.0.1:10180", warnings: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const text = typeof c.input === "string" ? c.input : JSON.stringify(c.input);
      assert.deepEqual(
        parseConfigWithWarnings(text, SOURCE).warnings.map((w) => w.path),
        c.warnings,
      );
    });
  }
});

// CKE matches machine_types against sabakan's bmc.type exactly (IPMI-2.0, iDRAC-9): a value that differs only by case
// matches nothing, so it is warned about; a custom type is allowed.
describe("parseConfigWithWarnings: machine_types in the wrong case", () => {
  const procedure = (types: unknown) => ({
    machine_types: types,
    repair_operations: [{ operation: "op", repair_steps: [{ repair_command: ["r"] }], health_check_command: ["c"] }],
  });
  const cases: Array<{ name: string; procedures: unknown[]; warnings: Array<[string, string]> }> = [
    { name: "sabakan's spellings warn of nothing", procedures: [procedure(["IPMI-2.0", "iDRAC-9"])], warnings: [] },
    { name: "custom types warn of nothing", procedures: [procedure(["qemu", "ipmi-1.0"])], warnings: [] },
    {
      name: "each value in the wrong case, with its path and sabakan's type",
      procedures: [procedure(["qemu"]), procedure(["IPMI-2.0", "ipmi-2.0", "IDRAC-9"])],
      warnings: [
        [
          "repair.repair_procedures[1].machine_types[1]",
          `"ipmi-2.0" differs from sabakan's BMC type "IPMI-2.0" only by case; machine types match bmc.type exactly (as in CKE), so it matches no IPMI-2.0 machine`,
        ],
        [
          "repair.repair_procedures[1].machine_types[2]",
          `"IDRAC-9" differs from sabakan's BMC type "iDRAC-9" only by case; machine types match bmc.type exactly (as in CKE), so it matches no iDRAC-9 machine`,
        ],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { config, warnings } = parseConfigWithWarnings(JSON.stringify({ repair: { repair_procedures: c.procedures } }), SOURCE);
      assert.deepEqual(
        warnings.map((w) => [w.path, w.message]),
        c.warnings,
      );
      assert.equal(config.repair.repairProcedures.length, c.procedures.length, "a warning, not a refusal");
    });
  }
});

// Health checks read Nodes: without a kubernetes section they run only in a Pod (in-cluster credentials), and nothing
// else would say so outside one.
describe("parseConfigWithWarnings: health checks without a kubernetes section", () => {
  const check = (name: string) => ({
    name,
    selector: { matchLabels: { a: "b" } },
    unhealthy_conditions: [{ type: "Ready", status: "False", timeout_seconds: 1 }],
    operation: "op",
  });
  const config = (extra: object) => JSON.stringify({ ...withOperation({}), ...extra });
  const cases: Array<{ name: string; extra: object; warnings: Array<[string, RegExp]> }> = [
    {
      name: "one check, no kubernetes section: it runs only in a Pod",
      extra: { health_checks: [check("a")] },
      warnings: [
        [
          "health_checks",
          /^the health check reads Nodes from Kubernetes, and the file has no kubernetes section: it runs only where kintsugi finds in-cluster credentials \(in a Pod\)/,
        ],
      ],
    },
    {
      name: "two checks",
      extra: { health_checks: [check("a"), check("b")] },
      warnings: [["health_checks", /^the 2 health checks read Nodes .*: they run only where/]],
    },
    { name: "kubernetes: {} says the Pod's credentials", extra: { health_checks: [check("a")], kubernetes: {} }, warnings: [] },
    { name: "a kubeconfig", extra: { health_checks: [check("a")], kubernetes: { kubeconfig: "/k" } }, warnings: [] },
    { name: "no health checks", extra: {}, warnings: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { warnings } = parseConfigWithWarnings(config(c.extra), SOURCE);
      assert.equal(warnings.length, c.warnings.length, JSON.stringify(warnings));
      c.warnings.forEach(([path, message], i) => {
        assert.equal(warnings[i]?.path, path);
        assert.match(warnings[i]?.message ?? "", message);
      });
    });
  }
});
