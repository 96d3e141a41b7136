/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** How a generation round ended. */
export type ClusterGenerationOutcome =
  /** No configuration could be made; the configuration in force stays and the error is recorded. */
  | 'FAILED'
  /** A new configuration was generated. */
  | 'GENERATED'
  /** The configuration in force already matches the machines and the template. Recorded only after a failure. */
  | 'UNCHANGED';

/** What started a generation round. */
export type ClusterGenerationTrigger =
  /** An operator's adoptCluster: the configuration CKE ran. */
  | 'ADOPT'
  /** A machine state change made through kintsugi's setMachineState. */
  | 'EVENT'
  /** An operator's runClusterGeneration. */
  | 'OPERATOR'
  /** The schedule (sabakan.cluster_schedule, else sabakan.schedule). */
  | 'SCHEDULE'
  /** Changed variables, cluster constraints or the switch. */
  | 'SETTINGS'
  /** A new template. */
  | 'TEMPLATE';

/** How cluster generation chooses workers (the config's sabakan.worker_selection). */
export type ClusterWorkerSelection =
  /** Every healthy machine a worker, minimum-workers-rate on retirement, spare nodes first as control planes (CKE v1.32.2 and later). */
  | 'ALL_HEALTHY'
  /** minimum-workers, maximum-workers and the templates' weights (CKE before v1.32.2). Records older than the policy read as this. */
  | 'WEIGHTED';

/** A node's standing under a health check. */
export type HealthCheckTargetState =
  /** No configured condition holds. */
  | 'HEALTHY'
  /** A configured condition holds, but not yet for its timeout. */
  | 'PENDING'
  /** A configured condition has held for longer than its timeout. */
  | 'UNHEALTHY';

/** What a poll did with one machine: enqueued it, or skipped it for one of the skip kinds (see SkipKind). */
export type MachineFate =
  /** Skipped: another machine had its address. */
  | 'DUPLICATE_ADDRESS'
  /** Enqueued. */
  | 'ENQUEUED'
  /** Skipped or held by repair.escalation. */
  | 'ESCALATED'
  /** Skipped: an operator held it. */
  | 'HELD'
  /** Skipped: its first IPv4 is not an address. */
  | 'INVALID_ADDRESS'
  /** Skipped: no IPv4 address. */
  | 'NO_ADDRESS'
  /** Held: not a node, within wait-seconds-to-repair-rebooting. */
  | 'OUT_OF_CLUSTER'
  /** Held by maximum-repair-queue-entries. */
  | 'QUEUE_LIMIT'
  /** Held by maximum-unhealthy-machines-per-rack. */
  | 'RACK_LIMIT'
  /** Held: rebooting, within wait-seconds-to-repair-rebooting. */
  | 'REBOOTING'
  /** Skipped: it had an entry in the queue. */
  | 'RECENTLY_REPAIRED';

/** Where a hold comes from. */
export type MachineHoldSource =
  /** Read from the Node annotation `kintsugi.cybozu.io/hold`, whose value is the reason. */
  | 'ANNOTATION'
  /** Set through the API (holdMachine, `kintsugi machine hold`) and stored. */
  | 'API';

/** MachineState enumerates machine states. */
export type MachineState =
  | 'HEALTHY'
  | 'RETIRED'
  | 'RETIRING'
  | 'UNHEALTHY'
  | 'UNINITIALIZED'
  | 'UNREACHABLE'
  | 'UPDATING';

/** A kind of failure domain. */
export type PacingDomainKind =
  /** The entry's machine type. */
  | 'MACHINE_TYPE'
  /** The machine's rack in sabakan. A machine whose rack kintsugi has not seen in any sabakan answer is not paced by rack. */
  | 'RACK';

/** What repairStats can group by. */
export type RepairStatsDimension =
  /** The entry's machine type. */
  | 'MACHINE_TYPE'
  /** The entry's operation. */
  | 'OPERATION'
  /** The machine's rack as sabakan says now. */
  | 'RACK'
  /** The step the repair ended in (0 is the first). */
  | 'STEP';

/** The status of a repair entry. SUCCEEDED and FAILED are finished; finished entries stay until deleted. */
export type RepairStatus =
  /** A repair command failed, the steps ran out, or the success command failed. */
  | 'FAILED'
  /** Being repaired: draining, running a repair command or watching. */
  | 'PROCESSING'
  /** Waiting for a concurrency slot. */
  | 'QUEUED'
  /** The health check reported the machine healthy and the success command (if any) succeeded. */
  | 'SUCCEEDED';

/** Where a repair entry is within its current step. */
export type RepairStepStatus =
  /** Evicting the pods of the machine's node. */
  | 'DRAINING'
  /** Not started, or waiting for the drain back-off to expire. */
  | 'WAITING'
  /** The repair command ran; watching the health check for `watch_seconds`. */
  | 'WATCHING';

/** What an unfinished repair entry waits for. */
export type RepairWaitKind =
  /** The entry waits out its drain back-off, `until` it expires. */
  | 'BACKOFF'
  /** A command of the entry is running (diagnostics, repair or success command). */
  | 'COMMAND'
  /** `max_concurrent_repairs` entries are in progress. */
  | 'CONCURRENCY'
  /** A control-plane rule: one control plane at a time, none while another one is rebooted or not Ready. */
  | 'CONTROL_PLANE'
  /** The node is drained: pods are evicted `until` the eviction deadline, then the drain backs off. */
  | 'DRAINING'
  /** The machine is healthy; the repair is proven once it stays healthy `until` the end of `success_dwell_seconds`. */
  | 'DWELL'
  /** The machine is held (through kintsugi or a Node annotation), `until` the hold ends when it has an end. */
  | 'HOLD'
  /** Another entry (`entryIndex`) is repairing the same machine. */
  | 'MACHINE_BUSY'
  /** The pacing allowance of the failure domain `domain` is used up. */
  | 'PACING'
  /** The health check says healthy, but the proof of repair its operation requires (`success_requires`) is missing: the message names what. */
  | 'PROOF'
  /** The repair queue is disabled (`repairQueueEnabled` false): nothing starts or moves on. */
  | 'QUEUE_DISABLED'
  /** The step's repair command ran; the health check is watched `until` the end of `watch_seconds`. */
  | 'WATCHING';

/** The constraints a replay tries instead of the recorded ones; each is an integer >= 0 (at most 1,000,000). */
export type ReplayConstraintsInput = {
  /** maximum-repair-queue-entries. */
  maximumRepairQueueEntries?: number | null | undefined;
  /** maximum-unhealthy-machines-per-rack (0 = off). */
  maximumUnhealthyMachinesPerRack?: number | null | undefined;
  /** wait-seconds-to-repair-rebooting. */
  waitSecondsToRepairRebooting?: number | null | undefined;
};

/**
 * A health check's gate limit a replay tries instead of the configured one: maxUnhealthy or unhealthyRange, exactly
 * one of them, spelled as in the config file.
 */
export type ReplayHealthCheckInput = {
  /** maxUnhealthy: a whole number or a percentage of the targets, 0-100% (e.g. `3` or `40%`; at most 16 characters). */
  maxUnhealthy?: string | null | undefined;
  /** The check's name, as configured (`health_checks[].name`). */
  name: string;
  /** unhealthyRange: `[min-max]` with min <= max (e.g. `[1-3]`; at most 32 characters). */
  unhealthyRange?: string | null | undefined;
};

/**
 * How the replay's runner starts simulated repairs instead of the one in force; a field not given keeps the config's
 * (`repair.max_concurrent_repairs`, `repair.pacing.domains`). When it differs from the config, the entries the live
 * run enqueued are simulated too rather than kept as long as they were recorded.
 */
export type ReplayPacingInput = {
  /** The failure domains repairs are paced by, each at most once; an empty list turns pacing off. */
  domains?: Array<PacingDomainKind> | null | undefined;
  /** max_concurrent_repairs: an integer from 1 to 10,000. */
  maxConcurrentRepairs?: number | null | undefined;
};

/**
 * Why sabakan-triggered repair left a machine alone. The first four defer the machine (it is repaired once the limit or
 * the wait ends); the others skip it.
 */
export type SkipKind =
  /** Skipped: another machine with the same address was enqueued in this poll. */
  | 'DUPLICATE_ADDRESS'
  /**
   * Skipped: the machine already had `repair.escalation.max_repairs` entries created within its window. Its own repair
   * is replaced by the escalation operation (enqueued in the same poll), or, without one, by a hold the poll sets.
   */
  | 'ESCALATED'
  /** Skipped: an operator's hold (or a Node's `kintsugi.cybozu.io/hold` annotation) vetoes repairing the machine. */
  | 'HELD'
  /** Skipped: its first IPv4 address is not an IP address. */
  | 'INVALID_ADDRESS'
  /** Skipped: the machine has no IPv4 address. */
  | 'NO_ADDRESS'
  /** Deferred: UNREACHABLE for less than `wait-seconds-to-repair-rebooting` and not a node (it may be rebooting). */
  | 'OUT_OF_CLUSTER'
  /** Deferred: enqueuing the poll's candidates would exceed `maximum-repair-queue-entries`, so none was enqueued. */
  | 'QUEUE_LIMIT'
  /** Deferred: its rack has more unhealthy machines than `maximum-unhealthy-machines-per-rack` (likely an infrastructure failure). */
  | 'RACK_LIMIT'
  /** Deferred: UNREACHABLE for less than `wait-seconds-to-repair-rebooting` while CKE reboots its node. */
  | 'REBOOTING'
  /** Skipped: an entry for its address is in the queue (any status, until it is deleted). */
  | 'RECENTLY_REPAIRED';

/** What a health check's remediation did with one unhealthy target. */
export type TargetFate =
  /** Enqueued. */
  | 'ENQUEUED'
  /** Held by repair.escalation. */
  | 'ESCALATED'
  /** Skipped: an operator held it. */
  | 'HELD'
  /** Held: the node's first InternalIP is not an address. */
  | 'INVALID_ADDRESS'
  /** Held: the node has no InternalIP. */
  | 'NO_ADDRESS'
  /** Held: its machine type has no procedure with the check's operation. */
  | 'NO_PROCEDURE'
  /** Held by maximum-repair-queue-entries (all or nothing). */
  | 'QUEUE_LIMIT'
  /** Held by maximum-unhealthy-machines-per-rack: its rack had more unhealthy targets. */
  | 'RACK_LIMIT'
  /** Skipped: its address had an entry in the queue. */
  | 'RECENTLY_REPAIRED'
  /** Held: the check's gate was closed (maxUnhealthy or unhealthyRange, or paused). */
  | 'SHORT_CIRCUITED'
  /** Held: its machine type is unknown. */
  | 'UNKNOWN_TYPE';

export type EntryFieldsFragment = { index: string, address: string, nodename: string, serial: string | null, machineType: string, operation: string, status: RepairStatus, step: number, stepStatus: RepairStepStatus, deleted: boolean, lastTransitionTime: string | null, drainBackoffCount: number, drainBackoffExpire: string | null };

export type ListEntriesQueryVariables = Exact<{ [key: string]: never; }>;


export type ListEntriesQuery = { searchRepairEntries: Array<{ failure: string | null, index: string, address: string, nodename: string, serial: string | null, machineType: string, operation: string, status: RepairStatus, step: number, stepStatus: RepairStepStatus, deleted: boolean, lastTransitionTime: string | null, drainBackoffCount: number, drainBackoffExpire: string | null }> };

export type AddEntryMutationVariables = Exact<{
  operation: string;
  machineType: string;
  address: string;
  serial?: string | null | undefined;
}>;


export type AddEntryMutation = { addRepairEntry: { index: string, address: string, nodename: string, serial: string | null, machineType: string, operation: string, status: RepairStatus, step: number, stepStatus: RepairStepStatus, deleted: boolean, lastTransitionTime: string | null, drainBackoffCount: number, drainBackoffExpire: string | null } };

export type ImportEntriesMutationVariables = Exact<{
  entries: string;
}>;


export type ImportEntriesMutation = { importRepairEntries: { alreadyImported: Array<string>, imported: Array<{ index: string, address: string, nodename: string, serial: string | null, machineType: string, operation: string, status: RepairStatus, step: number, stepStatus: RepairStepStatus, deleted: boolean, lastTransitionTime: string | null, drainBackoffCount: number, drainBackoffExpire: string | null }> } };

export type DeleteEntryMutationVariables = Exact<{
  index: string | number;
}>;


export type DeleteEntryMutation = { deleteRepairEntry: { index: string } };

export type DeleteFinishedMutationVariables = Exact<{ [key: string]: never; }>;


export type DeleteFinishedMutation = { deleteFinishedRepairEntries: Array<{ index: string }> };

export type DeleteUnfinishedMutationVariables = Exact<{ [key: string]: never; }>;


export type DeleteUnfinishedMutation = { deleteUnfinishedRepairEntries: Array<{ index: string }> };

export type QueueEnabledQueryVariables = Exact<{ [key: string]: never; }>;


export type QueueEnabledQuery = { repairQueueEnabled: boolean };

export type SetQueueEnabledMutationVariables = Exact<{
  enabled: boolean;
}>;


export type SetQueueEnabledMutation = { setRepairQueueEnabled: boolean };

export type ResetBackoffMutationVariables = Exact<{ [key: string]: never; }>;


export type ResetBackoffMutation = { resetRepairBackoff: Array<{ index: string }> };

export type CountEntriesQueryVariables = Exact<{ [key: string]: never; }>;


export type CountEntriesQuery = { searchRepairEntries: Array<{ index: string }> };

export type AutoRepairEnabledQueryVariables = Exact<{ [key: string]: never; }>;


export type AutoRepairEnabledQuery = { autoRepairEnabled: boolean };

export type SetAutoRepairEnabledMutationVariables = Exact<{
  enabled: boolean;
}>;


export type SetAutoRepairEnabledMutation = { setAutoRepairEnabled: boolean };

export type GetAutoRepairVariablesQueryVariables = Exact<{ [key: string]: never; }>;


export type GetAutoRepairVariablesQuery = { autoRepairVariables: { text: string | null } };

export type SetAutoRepairVariablesMutationVariables = Exact<{
  text: string;
}>;


export type SetAutoRepairVariablesMutation = { setAutoRepairVariables: { text: string | null } };

export type ConstraintsFieldsFragment = { controlPlaneCount: number, minimumWorkersRate: number, maximumUnreachableNodesForReboot: number, maximumRepairQueueEntries: number, waitSecondsToRepairRebooting: number, maximumUnhealthyMachinesPerRack: number, minimumWorkers: number, maximumWorkers: number, waitSecondsToReplaceControlPlane: number };

export type ShowConstraintsQueryVariables = Exact<{ [key: string]: never; }>;


export type ShowConstraintsQuery = { constraints: { controlPlaneCount: number, minimumWorkersRate: number, maximumUnreachableNodesForReboot: number, maximumRepairQueueEntries: number, waitSecondsToRepairRebooting: number, maximumUnhealthyMachinesPerRack: number, minimumWorkers: number, maximumWorkers: number, waitSecondsToReplaceControlPlane: number } };

export type SetConstraintMutationVariables = Exact<{
  name: string;
  value: number;
}>;


export type SetConstraintMutation = { setConstraint: { controlPlaneCount: number, minimumWorkersRate: number, maximumUnreachableNodesForReboot: number, maximumRepairQueueEntries: number, waitSecondsToRepairRebooting: number, maximumUnhealthyMachinesPerRack: number, minimumWorkers: number, maximumWorkers: number, waitSecondsToReplaceControlPlane: number } };

export type OutcomeFieldsFragment = { sequence: string, time: string, trigger: string, machinesSeen: number, skippedTotal: number, error: string | null, enqueued: Array<{ index: string, address: string, machineType: string, operation: string, serial: string | null }>, skipped: Array<{ serial: string, address: string | null, state: MachineState, reason: string }>, skippedByKind: Array<{ kind: SkipKind, machines: number }>, shortCircuit: { existingEntries: number, candidates: number, limit: number } | null };

export type RunAutoRepairMutationVariables = Exact<{ [key: string]: never; }>;


export type RunAutoRepairMutation = { runAutoRepair: { sequence: string, time: string, trigger: string, machinesSeen: number, skippedTotal: number, error: string | null, enqueued: Array<{ index: string, address: string, machineType: string, operation: string, serial: string | null }>, skipped: Array<{ serial: string, address: string | null, state: MachineState, reason: string }>, skippedByKind: Array<{ kind: SkipKind, machines: number }>, shortCircuit: { existingEntries: number, candidates: number, limit: number } | null } };

export type AutoRepairOutcomesQueryVariables = Exact<{
  last?: number | null | undefined;
}>;


export type AutoRepairOutcomesQuery = { autoRepairOutcomes: Array<{ sequence: string, time: string, trigger: string, machinesSeen: number, skippedTotal: number, error: string | null, enqueued: Array<{ index: string, address: string, machineType: string, operation: string, serial: string | null }>, skipped: Array<{ serial: string, address: string | null, state: MachineState, reason: string }>, skippedByKind: Array<{ kind: SkipKind, machines: number }>, shortCircuit: { existingEntries: number, candidates: number, limit: number } | null }> };

export type HealthCheckFieldsFragment = { name: string, paused: boolean, operation: string, expectedNodes: number, currentHealthy: number, unhealthyCount: number, remediationsAllowed: number, gateOpen: boolean, gateReason: string | null, maxUnhealthy: string, unhealthyRange: string | null, nextCheckAt: string | null, evaluatedAt: string | null, error: string | null, targets: Array<{ node: string, address: string | null, state: HealthCheckTargetState, since: string | null, nextCheckAt: string | null, rule: { type: string, status: string, timeoutSeconds: number } | null }>, held: Array<{ node: string, reason: string }> };

export type ListHealthChecksQueryVariables = Exact<{ [key: string]: never; }>;


export type ListHealthChecksQuery = { healthChecks: Array<{ name: string, paused: boolean, operation: string, expectedNodes: number, currentHealthy: number, unhealthyCount: number, remediationsAllowed: number, gateOpen: boolean, gateReason: string | null, maxUnhealthy: string, unhealthyRange: string | null, nextCheckAt: string | null, evaluatedAt: string | null, error: string | null, targets: Array<{ node: string, address: string | null, state: HealthCheckTargetState, since: string | null, nextCheckAt: string | null, rule: { type: string, status: string, timeoutSeconds: number } | null }>, held: Array<{ node: string, reason: string }> }> };

export type SetHealthCheckPausedMutationVariables = Exact<{
  name: string;
  paused: boolean;
}>;


export type SetHealthCheckPausedMutation = { setHealthCheckPaused: { name: string, paused: boolean, operation: string, expectedNodes: number, currentHealthy: number, unhealthyCount: number, remediationsAllowed: number, gateOpen: boolean, gateReason: string | null, maxUnhealthy: string, unhealthyRange: string | null, nextCheckAt: string | null, evaluatedAt: string | null, error: string | null, targets: Array<{ node: string, address: string | null, state: HealthCheckTargetState, since: string | null, nextCheckAt: string | null, rule: { type: string, status: string, timeoutSeconds: number } | null }>, held: Array<{ node: string, reason: string }> } };

export type SetClusterTemplateMutationVariables = Exact<{
  template: string;
}>;


export type SetClusterTemplateMutation = { setClusterTemplate: { name: string, setAt: string } };

export type GetClusterTemplateQueryVariables = Exact<{ [key: string]: never; }>;


export type GetClusterTemplateQuery = { clusterTemplate: { template: string } | null };

export type SetClusterVariablesMutationVariables = Exact<{
  text: string;
}>;


export type SetClusterVariablesMutation = { setClusterVariables: { text: string | null } };

export type GetClusterVariablesQueryVariables = Exact<{ [key: string]: never; }>;


export type GetClusterVariablesQuery = { clusterVariables: { text: string | null } };

export type ClusterGenerationEnabledQueryVariables = Exact<{ [key: string]: never; }>;


export type ClusterGenerationEnabledQuery = { clusterGenerationEnabled: boolean };

export type SetClusterGenerationEnabledMutationVariables = Exact<{
  enabled: boolean;
}>;


export type SetClusterGenerationEnabledMutation = { setClusterGenerationEnabled: boolean };

export type GetGeneratedClusterQueryVariables = Exact<{
  generation?: number | null | undefined;
}>;


export type GetGeneratedClusterQuery = { generatedCluster: { generation: number, yaml: string } | null };

export type GenerationFieldsFragment = { sequence: string, outcome: ClusterGenerationOutcome, generation: number, time: string, lastTime: string, repeats: number, trigger: ClusterGenerationTrigger, policy: ClusterWorkerSelection, changes: Array<string>, error: string | null };

export type RunClusterGenerationMutationVariables = Exact<{ [key: string]: never; }>;


export type RunClusterGenerationMutation = { runClusterGeneration: { outcome: ClusterGenerationOutcome, record: { sequence: string, outcome: ClusterGenerationOutcome, generation: number, time: string, lastTime: string, repeats: number, trigger: ClusterGenerationTrigger, policy: ClusterWorkerSelection, changes: Array<string>, error: string | null } | null, cluster: { generation: number } | null } };

export type AdoptClusterMutationVariables = Exact<{
  cluster: string;
}>;


export type AdoptClusterMutation = { adoptCluster: { suggestedWorkerSelection: ClusterWorkerSelection, suggestion: string, cluster: { generation: number }, nextRounds: Array<{ workerSelection: ClusterWorkerSelection, outcome: ClusterGenerationOutcome, details: Array<string> }> } };

export type ClusterGenerationsQueryVariables = Exact<{
  last?: number | null | undefined;
}>;


export type ClusterGenerationsQuery = { clusterGenerations: Array<{ sequence: string, outcome: ClusterGenerationOutcome, generation: number, time: string, lastTime: string, repeats: number, trigger: ClusterGenerationTrigger, policy: ClusterWorkerSelection, changes: Array<string>, error: string | null }> };

export type MachineHoldFieldsFragment = { address: string, reason: string, setBy: string, setAt: string | null, until: string | null, source: MachineHoldSource };

export type ListMachineHoldsQueryVariables = Exact<{ [key: string]: never; }>;


export type ListMachineHoldsQuery = { machineHolds: Array<{ address: string, reason: string, setBy: string, setAt: string | null, until: string | null, source: MachineHoldSource }> };

export type HoldMachineMutationVariables = Exact<{
  address: string;
  reason: string;
  until?: string | null | undefined;
}>;


export type HoldMachineMutation = { holdMachine: { address: string, reason: string, setBy: string, setAt: string | null, until: string | null, source: MachineHoldSource } };

export type MachineAddressBySerialQueryVariables = Exact<{
  serial: string | number;
}>;


export type MachineAddressBySerialQuery = { machine: { spec: { ipv4: Array<string> } } };

export type ReleaseMachineMutationVariables = Exact<{
  address: string;
}>;


export type ReleaseMachineMutation = { releaseMachine: { address: string, reason: string, setBy: string, setAt: string | null, until: string | null, source: MachineHoldSource } };

export type WatchFieldsFragment = { index: string, address: string, nodename: string, operation: string, status: RepairStatus, step: number, stepCount: number | null, stepStatus: RepairStepStatus, deleted: boolean, drainBackoffCount: number, drainBackoffExpire: string | null, lastTransitionTime: string | null, waitingFor: { kind: RepairWaitKind, message: string } | null, history: Array<{ reason: string }> };

export type WatchEntriesQueryVariables = Exact<{ [key: string]: never; }>;


export type WatchEntriesQuery = { searchRepairEntries: Array<{ index: string, address: string, nodename: string, operation: string, status: RepairStatus, step: number, stepCount: number | null, stepStatus: RepairStepStatus, deleted: boolean, drainBackoffCount: number, drainBackoffExpire: string | null, lastTransitionTime: string | null, waitingFor: { kind: RepairWaitKind, message: string } | null, history: Array<{ reason: string }> }> };

export type WatchEntryQueryVariables = Exact<{
  index: string | number;
}>;


export type WatchEntryQuery = { repairEntry: { index: string, address: string, nodename: string, operation: string, status: RepairStatus, step: number, stepCount: number | null, stepStatus: RepairStepStatus, deleted: boolean, drainBackoffCount: number, drainBackoffExpire: string | null, lastTransitionTime: string | null, waitingFor: { kind: RepairWaitKind, message: string } | null, history: Array<{ reason: string }> } };

export type WatchWaitsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type WatchWaitsSubscription = { repairWaits: Array<{ index: string, waitingFor: { kind: RepairWaitKind, message: string } }> };

export type SimulateAutoRepairQueryVariables = Exact<{
  since: string;
  constraints?: ReplayConstraintsInput | null | undefined;
  repairSeconds?: number | null | undefined;
  healthChecks?: Array<ReplayHealthCheckInput> | ReplayHealthCheckInput | null | undefined;
  pacing?: ReplayPacingInput | null | undefined;
}>;


export type SimulateAutoRepairQuery = { simulateAutoRepair: { pollsReplayed: number, remediationsReplayed: number, unconfiguredChecks: Array<string>, unreadableRecords: number, truncated: boolean, enqueuedLive: number, enqueuedSimulated: number, polls: Array<{ time: string, source: string, healthCheck: string | null, live: { enqueued: Array<string>, shortCircuited: boolean, queueSize: number }, simulated: { enqueued: Array<string>, shortCircuited: boolean, queueSize: number }, differences: Array<{ serial: string, address: string | null, live: MachineFate, simulated: MachineFate }>, targets: Array<{ node: string, address: string | null, live: TargetFate, simulated: TargetFate }> }> } };

export type RepairStatsQueryVariables = Exact<{
  since: string;
  until?: string | null | undefined;
  groupBy?: Array<RepairStatsDimension> | RepairStatsDimension | null | undefined;
}>;


export type RepairStatsQuery = { repairStats: Array<{ machineType: string | null, operation: string | null, rack: string | null, step: string | null, entries: number, succeeded: number, failed: number, deleted: number, successRate: number | null, drainingSeconds: number, stepsNeededP50: number | null, stepsNeededMax: number | null, withHistory: number, timeToRepair: { p50Seconds: number, p90Seconds: number, maxSeconds: number } | null }> };

export type MachineRepairsQueryVariables = Exact<{
  address?: string | null | undefined;
  serial?: string | null | undefined;
}>;


export type MachineRepairsQuery = { machineRepairs: { meanSecondsBetweenFailures: number | null, repairs: Array<{ index: number, address: string, machineType: string, operation: string, status: string, createdAt: string, finishedAt: string, secondsSincePrevious: number | null }> } };

export type FrequentlyRepairedQueryVariables = Exact<{
  since: string;
  top?: number | null | undefined;
}>;


export type FrequentlyRepairedQuery = { frequentlyRepaired: Array<{ address: string, machineType: string, repairs: number, succeeded: number, failed: number, lastFinishedAt: string }> };
