import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { RepairEntry as RepairEntryModel } from '../../domain/queue/repair-entry.js';
import type { RepairHistoryRecord as RepairHistoryRecordModel } from '../../domain/queue/repair-history.js';
import type { MachineQueryVariables as MachineQueryVariablesModel, MachineParams as MachineParamsModel } from '../../domain/sabakan/machine-params.js';
import type { RepairStepConfig as RepairStepConfigModel } from '../../domain/queue/repair-config.js';
import type { RepairEvidence as RepairEvidenceModel } from '../../domain/proof/repair-evidence.js';
import type { AutoRepairOutcome as AutoRepairOutcomeModel } from '../../domain/intake/auto-repair-outcome.js';
import type { SkippedMachine as SkippedMachineModel } from '../../domain/intake/auto-repair-intake.js';
import type { SkipKindCount as SkipKindCountModel } from '../../domain/intake/skipped-bound.js';
import type { SabakanObject as SabakanObjectModel, MachineStateChange as MachineStateChangeModel } from '../../gateway/sabakan-data.js';
import type { RepairChange as RepairChangeModel, HoldChange as HoldChangeModel } from '../../store/store-port.js';
import type { HealthCheckStatus as HealthCheckStatusModel } from '../../domain/health/health-check-remediation.js';
import type { TargetEvaluation as TargetEvaluationModel } from '../../domain/health/health-check-evaluation.js';
import type { StoredClusterTemplate as StoredClusterTemplateModel, ClusterGeneration as ClusterGenerationModel } from '../../domain/cluster/generation-record.js';
import type { ClusterNode as ClusterNodeModel, Taint as TaintModel } from '../../domain/cluster/types.js';
import type { RepairPacingView as RepairPacingViewModel, DomainPacing as DomainPacingModel } from '../../domain/pacing/repair-pacing-report.js';
import type { PacingChange as PacingChangeModel } from '../../domain/pacing/repair-pacing.js';
import type { MachineHold as MachineHoldModel } from '../../domain/holds/machine-holds.js';
import type { WaitingFor as WaitingForModel } from '../../domain/queue/repair-wait.js';
import type { PublishedWait as PublishedWaitModel } from '../../domain/queue/published-waits.js';
import type { ReplayReport as ReplayReportModel, ReplayedPoll as ReplayedPollModel } from '../../domain/replay/auto-repair-replay.js';
import type { RepairStatsGroup as RepairStatsGroupModel, DurationSummary as DurationSummaryModel } from '../../domain/stats/repair-stats.js';
import type { MachineRepairHistory as MachineRepairHistoryModel, MachineRepair as MachineRepairModel, FrequentlyRepaired as FrequentlyRepairedModel } from '../../domain/stats/machine-repairs.js';
import type { FinishedRepair as FinishedRepairModel } from '../../domain/queue/finished-repair.js';
import type { DependencyStatus as DependencyStatusModel } from '../../domain/service/dependency-status.js';
import type { MachineStateCounts as MachineStateCountsModel, RackStateCount as RackStateCountModel } from '../../domain/sabakan/rack-state-counts.js';
import type { GraphQLContext } from '../context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** DateTime represents a date and time value. */
  DateTime: { input: number; output: number; }
  /** IPAddress represents an IPv4 or IPv6 address. */
  IPAddress: { input: string; output: string; }
};

/** What one sabakan poll saw and did. A failed poll enqueues nothing and says why in `error`. */
export type AutoRepairOutcome = {
  __typename?: 'AutoRepairOutcome';
  /** The entries this poll created, as created. */
  enqueued: Array<RepairEntry>;
  /** Why the poll failed, or null. */
  error?: Maybe<Scalars['String']['output']>;
  /** How many machines sabakan returned. */
  machinesSeen: Scalars['Int']['output'];
  /** Monotonic number of the poll. */
  sequence: Scalars['ID']['output'];
  /** Set when the all-or-nothing cap stopped the poll from enqueuing anything. */
  shortCircuit?: Maybe<AutoRepairShortCircuit>;
  /**
   * The machines left alone, with the reason for each, by serial: at most 1,000 of them (a whole data center's storm
   * would not fit one store write), shared fairly among the kinds (a kind with few skips is listed whole, the others
   * split the rest equally; within a kind every rack gets its first machine before any gets a second). `skippedTotal`
   * and `skippedByKind` count them all. With `first`, at most that many of them, chosen as fairly among the kinds and
   * racks (a sample for a page that draws a few; INVALID_ARGUMENT when negative).
   */
  skipped: Array<SkippedMachine>;
  /** How many machines the poll left alone per kind: the kinds it skipped any for, in SkipKind's order (at most one per kind). */
  skippedByKind: Array<SkipKindCount>;
  /** How many machines the poll left alone in all; more than the length of `skipped` when the list was cut at 1,000. */
  skippedTotal: Scalars['Int']['output'];
  /** When the poll decided. */
  time: Scalars['DateTime']['output'];
  /** `schedule` or `operator` (runAutoRepair). */
  trigger: Scalars['String']['output'];
};


/** What one sabakan poll saw and did. A failed poll enqueues nothing and says why in `error`. */
export type AutoRepairOutcomeSkippedArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** What a replay found. */
export type AutoRepairReplay = {
  __typename?: 'AutoRepairReplay';
  /** Entries the live polls and remediations enqueued, over the replayed records. */
  enqueuedLive: Scalars['Int']['output'];
  /** Entries the replay would have enqueued, over the replayed records. */
  enqueuedSimulated: Scalars['Int']['output'];
  /** The evaluations (polls and remediations) where some fate or the short circuit differs, oldest first (at most 1,000). */
  polls: Array<ReplayedPoll>;
  /** How many recorded polls were replayed. */
  pollsReplayed: Scalars['Int']['output'];
  /** How many recorded health-check remediations were replayed (decided again). */
  remediationsReplayed: Scalars['Int']['output'];
  /** Whether more polls were recorded since `since` than were replayed, or more differing polls found than returned. */
  truncated: Scalars['Boolean']['output'];
  /** Checks with remediation records in the range but no configuration now: their records were carried as recorded. */
  unconfiguredChecks: Array<Scalars['String']['output']>;
  /** Stored records that could not be read (corrupt or of the wrong shape): left out of the replay. */
  unreadableRecords: Scalars['Int']['output'];
};

/** The counts behind a `too many repair requests` short-circuit: existing + candidates > limit. */
export type AutoRepairShortCircuit = {
  __typename?: 'AutoRepairShortCircuit';
  /** Machines this poll would have enqueued. */
  candidates: Scalars['Int']['output'];
  /** Entries persisting in the queue (any status, deleted but not dequeued included). */
  existingEntries: Scalars['Int']['output'];
  /** maximum-repair-queue-entries. */
  limit: Scalars['Int']['output'];
};

/** The query variables of sabakan-triggered repair, sent as they are to sabakan's `searchMachines`. */
export type AutoRepairVariables = {
  __typename?: 'AutoRepairVariables';
  /** Machines must match this. */
  having?: Maybe<MachineParamsValue>;
  /** Machines must not match this. */
  notHaving?: Maybe<MachineParamsValue>;
  /**
   * The variables as they were last set, as text (what `ckecli auto-repair get-variables` prints): the bytes given as
   * `setAutoRepairVariables(text:)`, or ckecli's JSON of `having` and `notHaving` when those were given. Null while
   * none were set and CKE's defaults apply, where ckecli says `not found`.
   */
  text?: Maybe<Scalars['String']['output']>;
};

/** BMC represents a Baseboard Management Controller. */
export type Bmc = {
  __typename?: 'BMC';
  bmcType: Scalars['String']['output'];
  ipv4: Scalars['IPAddress']['output'];
};

/** BMCInfo represents BMC NIC configuration information. */
export type BmcInfo = {
  __typename?: 'BMCInfo';
  ipv4: NicConfig;
};

/** The result of adoptCluster. */
export type ClusterAdoption = {
  __typename?: 'ClusterAdoption';
  /** The adopted configuration, now the one in force. */
  cluster: GeneratedCluster;
  /** What the next round would do with the adopted configuration under each worker selection, the config's first. */
  nextRounds: Array<ClusterNextRound>;
  /** The worker selection under which the next round changes nothing (all_healthy first), else the one changing least. */
  suggestedWorkerSelection: ClusterWorkerSelection;
  /** One sentence: why that worker selection, and whether the config (sabakan.worker_selection) has it. */
  suggestion: Scalars['String']['output'];
};

/** One kept generation record: a new configuration, a failed round, or the first successful round after a failure. */
export type ClusterGeneration = {
  __typename?: 'ClusterGeneration';
  /** The reasons for a new configuration; empty for a failure. */
  changes: Array<Scalars['String']['output']>;
  /** The generated configuration; null for a failure. */
  cluster?: Maybe<GeneratedCluster>;
  /** Why the round failed; null when it generated. */
  error?: Maybe<Scalars['String']['output']>;
  /** The new configuration's number (GENERATED), else the one in force (0 for none). */
  generation: Scalars['Int']['output'];
  /** When the newest round this record stands for ran. */
  lastTime: Scalars['DateTime']['output'];
  /** GENERATED, FAILED, or UNCHANGED for the first successful round after a failure. */
  outcome: ClusterGenerationOutcome;
  /** The worker selection policy (sabakan.worker_selection) the round ran under. */
  policy: ClusterWorkerSelection;
  /** How many rounds in a row failed with this error (1 for a GENERATED record). */
  repeats: Scalars['Int']['output'];
  /** Ascending record number. */
  sequence: Scalars['ID']['output'];
  /** When the round ran (the first of them, for a repeated failure). */
  time: Scalars['DateTime']['output'];
  /** What started the round. */
  trigger: ClusterGenerationTrigger;
};

/** How a generation round ended. */
export enum ClusterGenerationOutcome {
  /** No configuration could be made; the configuration in force stays and the error is recorded. */
  Failed = 'FAILED',
  /** A new configuration was generated. */
  Generated = 'GENERATED',
  /** The configuration in force already matches the machines and the template. Recorded only after a failure. */
  Unchanged = 'UNCHANGED'
}

/** The result of runClusterGeneration. */
export type ClusterGenerationRound = {
  __typename?: 'ClusterGenerationRound';
  /** The configuration in force after the round; null when there is none. */
  cluster?: Maybe<GeneratedCluster>;
  /** GENERATED, UNCHANGED or FAILED. */
  outcome: ClusterGenerationOutcome;
  /** The record this round made or added to; null for an UNCHANGED round that followed no failure. */
  record?: Maybe<ClusterGeneration>;
};

/** What started a generation round. */
export enum ClusterGenerationTrigger {
  /** An operator's adoptCluster: the configuration CKE ran. */
  Adopt = 'adopt',
  /** A machine state change made through kintsugi's setMachineState. */
  Event = 'event',
  /** An operator's runClusterGeneration. */
  Operator = 'operator',
  /** The schedule (sabakan.cluster_schedule, else sabakan.schedule). */
  Schedule = 'schedule',
  /** Changed variables, cluster constraints or the switch. */
  Settings = 'settings',
  /** A new template. */
  Template = 'template'
}

/** What the next generation round would do under one worker selection. */
export type ClusterNextRound = {
  __typename?: 'ClusterNextRound';
  /** The reasons of the configuration it would make (GENERATED) or its error (FAILED); empty when UNCHANGED. */
  details: Array<Scalars['String']['output']>;
  /** UNCHANGED (the cluster stays as it is), GENERATED or FAILED. */
  outcome: ClusterGenerationOutcome;
  /** The worker selection (sabakan.worker_selection). */
  workerSelection: ClusterWorkerSelection;
};

/** One node of a generated cluster. */
export type ClusterNode = {
  __typename?: 'ClusterNode';
  /** The node's address: the machine's first IPv4 address. */
  address: Scalars['String']['output'];
  /** Node annotations: the template's, the serial and the register and retire dates; sorted by name. */
  annotations: Array<Label>;
  /** Whether the node is a control plane. */
  controlPlane: Scalars['Boolean']['output'];
  /** Node labels: sabakan's (prefixed sabakan.cke.cybozu.com/), the template's and CKE's own; sorted by name. */
  labels: Array<Label>;
  /** The template's taints plus cke.cybozu.com/state for retiring and retired machines. */
  taints: Array<Taint>;
  /** The SSH user, from the node template. */
  user: Scalars['String']['output'];
};

/** The template as an operator set it. */
export type ClusterTemplate = {
  __typename?: 'ClusterTemplate';
  /** The template's cluster name. */
  name: Scalars['String']['output'];
  /** When it was set. */
  setAt: Scalars['DateTime']['output'];
  /** The text exactly as given, comments included. */
  template: Scalars['String']['output'];
};

/** The query variables of cluster generation, sent as they are to sabakan's `searchMachines`. */
export type ClusterVariables = {
  __typename?: 'ClusterVariables';
  /** Machines must match this. */
  having?: Maybe<MachineParamsValue>;
  /** Machines must not match this. Default: roles boot and state RETIRED. */
  notHaving?: Maybe<MachineParamsValue>;
  /**
   * The variables as they were last set, as text (what `ckecli sabakan get-variables` prints), as
   * `AutoRepairVariables.text`; null while none were set and the defaults apply.
   */
  text?: Maybe<Scalars['String']['output']>;
};

/** How cluster generation chooses workers (the config's sabakan.worker_selection). */
export enum ClusterWorkerSelection {
  /** Every healthy machine a worker, minimum-workers-rate on retirement, spare nodes first as control planes (CKE v1.32.2 and later). */
  AllHealthy = 'all_healthy',
  /** minimum-workers, maximum-workers and the templates' weights (CKE before v1.32.2). Records older than the policy read as this. */
  Weighted = 'weighted'
}

/** The safety constraints, named in camelCase after CKE's kebab-case names. */
export type Constraints = {
  __typename?: 'Constraints';
  /** `control-plane-count`: control planes in a generated cluster. Default 1, at least 1. */
  controlPlaneCount: Scalars['Int']['output'];
  /** `maximum-repair-queue-entries`: sabakan-triggered repair enqueues nothing when the persisting entries plus the new ones would exceed this. Default 0. */
  maximumRepairQueueEntries: Scalars['Int']['output'];
  /** `maximum-unhealthy-machines-per-rack`: when more machines of one rack are candidates than this, none of them is enqueued. Default 0 = no limit. */
  maximumUnhealthyMachinesPerRack: Scalars['Int']['output'];
  /** `maximum-unreachable-nodes-for-reboot`: CKE's reboot-queue limit, stored and shown for CKE's tooling; kintsugi has no reboot queue. Any integer. Default 0. */
  maximumUnreachableNodesForReboot: Scalars['Int']['output'];
  /** `maximum-workers`: workers a generated cluster may have; 0 = unlimited, else at least minimum-workers. Default 0. */
  maximumWorkers: Scalars['Int']['output'];
  /** `minimum-workers`: workers a generated cluster must have. Default 1. */
  minimumWorkers: Scalars['Int']['output'];
  /** `minimum-workers-rate`: CKE's (v1.32.2 and later) lowest percentage of healthy machines that must stay workers when workers retire. Any integer, as in CKE. Default 80. */
  minimumWorkersRate: Scalars['Int']['output'];
  /** `wait-seconds-to-repair-rebooting`: an UNREACHABLE machine that is rebooting or not a node is left alone for this long. Default 0. */
  waitSecondsToRepairRebooting: Scalars['Int']['output'];
  /** `wait-seconds-to-replace-control-plane` (kintsugi's own): a control plane whose machine is neither HEALTHY, UPDATING nor UNINITIALIZED is replaced only once that state has lasted longer than this (from sabakan's status.timestamp), and never while its Node carries `cke.cybozu.com/reboot: "true"`; 0 = at once, as CKE's document says. Default 1800. */
  waitSecondsToReplaceControlPlane: Scalars['Int']['output'];
};

/** A service kintsugi calls, as its calls to it went. */
export type Dependency = {
  __typename?: 'Dependency';
  /** When the current run of failed calls began; null while calls work and before any call. */
  downSince?: Maybe<Scalars['DateTime']['output']>;
  /** The newest failure's message while calls fail (at most 500 characters); null otherwise. */
  error?: Maybe<Scalars['String']['output']>;
  /** Failed calls in the current run. */
  failures: Scalars['Int']['output'];
  /** When a call last failed; null when none did since kintsugi started. */
  lastFailed?: Maybe<Scalars['DateTime']['output']>;
  /** When a call last worked; null when none did since kintsugi started. */
  lastWorked?: Maybe<Scalars['DateTime']['output']>;
  /** `sabakan` or `kubernetes`. */
  name: Scalars['String']['output'];
  /** Whether the latest call worked; false before any call (see `lastWorked` and `downSince`). */
  up: Scalars['Boolean']['output'];
};

/** One failure domain value (a rack, a machine type) and its allowance. */
export type DomainPacing = {
  __typename?: 'DomainPacing';
  /** How many entries of this domain may be in progress before a queued one waits (1 to `max_concurrent_repairs`). */
  allowance: Scalars['Int']['output'];
  /** The kind of domain. */
  domain: PacingDomainKind;
  /** Processing entries of this domain that take a slot (those waiting out a drain back-off take none). It may exceed the allowance right after a failure: entries already in progress go on. */
  inProgress: Scalars['Int']['output'];
  /** The finished entry that last changed the allowance; null when none has finished in this domain (allowance 1). */
  lastChange?: Maybe<PacingChange>;
  /** The rack number or the machine type, as text. */
  value: Scalars['String']['output'];
};

/** Percentiles of a duration, in seconds (nearest rank: each is one of the durations). */
export type DurationSummary = {
  __typename?: 'DurationSummary';
  /** The longest. */
  maxSeconds: Scalars['Float']['output'];
  /** The median. */
  p50Seconds: Scalars['Float']['output'];
  /** The 90th percentile. */
  p90Seconds: Scalars['Float']['output'];
};

/** One entry's wait, as `repairWaits` sends it. */
export type EntryWait = {
  __typename?: 'EntryWait';
  /** The entry's index. */
  index: Scalars['ID']['output'];
  /** What it waits for (as `RepairEntry.waitingFor`). */
  waitingFor: RepairWait;
};

/** A repair that ended, as its finished-repair record keeps it. */
export type FinishedRepair = {
  __typename?: 'FinishedRepair';
  /** The address it was enqueued with. */
  address: Scalars['IPAddress']['output'];
  /** When it was enqueued. */
  createdAt: Scalars['DateTime']['output'];
  /** When it finished (its last transition), or was dequeued unfinished. */
  finishedAt: Scalars['DateTime']['output'];
  /** The entry's index. */
  index: Scalars['Int']['output'];
  /** The machine type. */
  machineType: Scalars['String']['output'];
  /** The operation. */
  operation: Scalars['String']['output'];
  /**
   * Why it failed: the reason of the change that made it FAILED (a failed command's ends with `; stderr: ` and the last
   * 200 characters of what the command wrote there, its lines joined by ` | `, control characters escaped), at most
   * 500 characters. Null when it did not fail, and for records kept before kintsugi kept reasons.
   */
  reason?: Maybe<Scalars['String']['output']>;
  /** Who created its entry: `operator`, `sabakan` or `health-check:NAME`. */
  source: Scalars['String']['output'];
  /** How it ended: `succeeded`, `failed`, or `deleted` (dequeued before it finished). */
  status: Scalars['String']['output'];
};

/** A machine and how often it was repaired. */
export type FrequentlyRepairedMachine = {
  __typename?: 'FrequentlyRepairedMachine';
  /** The address its repairs were enqueued with. */
  address: Scalars['IPAddress']['output'];
  /** Of them, those that failed. */
  failed: Scalars['Int']['output'];
  /** When its latest repair ended. */
  lastFinishedAt: Scalars['DateTime']['output'];
  /** Its machine type (its latest repair's). */
  machineType: Scalars['String']['output'];
  /** The repairs that ended in the range. */
  repairs: Scalars['Int']['output'];
  /** Of them, those that succeeded. */
  succeeded: Scalars['Int']['output'];
};

/** A generated cluster configuration. */
export type GeneratedCluster = {
  __typename?: 'GeneratedCluster';
  /** Why this generation differs from the one before, one sentence per change. */
  changes: Array<Scalars['String']['output']>;
  /** When it was generated. */
  generatedAt: Scalars['DateTime']['output'];
  /** 1 for the first configuration, one more for each new one. */
  generation: Scalars['Int']['output'];
  /** The nodes, control planes first. */
  nodes: Array<ClusterNode>;
  /** The worker selection policy (sabakan.worker_selection) that generated it. */
  policy: ClusterWorkerSelection;
  /** What started the round that generated it. */
  trigger: ClusterGenerationTrigger;
  /** The configuration as CKE's cluster.yml. */
  yaml: Scalars['String']['output'];
};

/** One health check and what its latest evaluation found. */
export type HealthCheck = {
  __typename?: 'HealthCheck';
  /** How many of them are healthy. */
  currentHealthy: Scalars['Int']['output'];
  /** Why the last evaluation could not be made (e.g. Kubernetes unreachable), or null. */
  error?: Maybe<Scalars['String']['output']>;
  /** When the check was last evaluated; null before the first evaluation. */
  evaluatedAt?: Maybe<Scalars['DateTime']['output']>;
  /** How many nodes the check targets. */
  expectedNodes: Scalars['Int']['output'];
  /** Whether remediation is allowed now. */
  gateOpen: Scalars['Boolean']['output'];
  /** Why remediation is not allowed, e.g. `total: 5, unhealthy: 3, maxUnhealthy: 40%`, or `paused`; null when open. */
  gateReason?: Maybe<Scalars['String']['output']>;
  /** Unhealthy nodes that were not remediated, and why. */
  held: Array<HeldTarget>;
  /** max_unhealthy as configured (`40%` or `3`). */
  maxUnhealthy: Scalars['String']['output'];
  /** The check's name, unique in the config file. */
  name: Scalars['String']['output'];
  /** When a pending node turns unhealthy unless it recovers. */
  nextCheckAt?: Maybe<Scalars['DateTime']['output']>;
  /** The repair operation enqueued for an unhealthy node. */
  operation: Scalars['String']['output'];
  /** Paused checks evaluate but never remediate. */
  paused: Scalars['Boolean']['output'];
  /** How many more unhealthy nodes the gate would tolerate. */
  remediationsAllowed: Scalars['Int']['output'];
  /** Each targeted node, by name. */
  targets: Array<HealthCheckTarget>;
  /** How many are not healthy (unhealthy or pending: pending ones count against the budget). */
  unhealthyCount: Scalars['Int']['output'];
  /** unhealthy_range as configured (`[1-3]`), or null. */
  unhealthyRange?: Maybe<Scalars['String']['output']>;
};

/** One node targeted by a health check. */
export type HealthCheckTarget = {
  __typename?: 'HealthCheckTarget';
  /** The node's first InternalIP: the address its repair entry gets. */
  address?: Maybe<Scalars['IPAddress']['output']>;
  /** When a PENDING node turns UNHEALTHY unless it recovers. */
  nextCheckAt?: Maybe<Scalars['DateTime']['output']>;
  /** The Node's name. */
  node: Scalars['String']['output'];
  /** The condition that failed (UNHEALTHY) or holds (PENDING); null when HEALTHY. */
  rule?: Maybe<UnhealthyCondition>;
  /** Since when that condition holds. */
  since?: Maybe<Scalars['DateTime']['output']>;
  /** The node's standing under the check. */
  state: HealthCheckTargetState;
};

/** A node's standing under a health check. */
export enum HealthCheckTargetState {
  /** No configured condition holds. */
  Healthy = 'healthy',
  /** A configured condition holds, but not yet for its timeout. */
  Pending = 'pending',
  /** A configured condition has held for longer than its timeout. */
  Unhealthy = 'unhealthy'
}

/** An unhealthy node a health check did not remediate, and why. */
export type HeldTarget = {
  __typename?: 'HeldTarget';
  /** The Node's name. */
  node: Scalars['String']['output'];
  /** Why it was not remediated. */
  reason: Scalars['String']['output'];
};

/** Label represents an arbitrary key-value pairs. */
export type Label = {
  __typename?: 'Label';
  name: Scalars['String']['output'];
  value: Scalars['String']['output'];
};

/** LabelInput represents a label to search machines. */
export type LabelInput = {
  name: Scalars['String']['input'];
  value: Scalars['String']['input'];
};

/** Machine represents a physical server in a datacenter rack. */
export type Machine = {
  __typename?: 'Machine';
  info: MachineInfo;
  /** kintsugi: the repair entries whose address is this machine's first IPv4, ordered by index. */
  repairEntries: Array<RepairEntry>;
  spec: MachineSpec;
  status: MachineStatus;
};

/** What a poll did with one machine: enqueued it, or skipped it for one of the skip kinds (see SkipKind). */
export enum MachineFate {
  /** Skipped: another machine had its address. */
  DuplicateAddress = 'duplicate_address',
  /** Enqueued. */
  Enqueued = 'enqueued',
  /** Skipped or held by repair.escalation. */
  Escalated = 'escalated',
  /** Skipped: an operator held it. */
  Held = 'held',
  /** Skipped: its first IPv4 is not an address. */
  InvalidAddress = 'invalid_address',
  /** Skipped: no IPv4 address. */
  NoAddress = 'no_address',
  /** Held: not a node, within wait-seconds-to-repair-rebooting. */
  OutOfCluster = 'out_of_cluster',
  /** Held by maximum-repair-queue-entries. */
  QueueLimit = 'queue_limit',
  /** Held by maximum-unhealthy-machines-per-rack. */
  RackLimit = 'rack_limit',
  /** Held: rebooting, within wait-seconds-to-repair-rebooting. */
  Rebooting = 'rebooting',
  /** Skipped: it had an entry in the queue. */
  RecentlyRepaired = 'recently_repaired'
}

/** A machine that would have fared differently. */
export type MachineFateDifference = {
  __typename?: 'MachineFateDifference';
  /** Its address in canonical form; null when it had none. */
  address?: Maybe<Scalars['IPAddress']['output']>;
  /** What happened to it. */
  live: MachineFate;
  /** The machine's serial. */
  serial: Scalars['String']['output'];
  /** What would have happened to it. */
  simulated: MachineFate;
};

/** An operator's veto on repairing one machine. */
export type MachineHold = {
  __typename?: 'MachineHold';
  /** The machine's address, in canonical form. */
  address: Scalars['IPAddress']['output'];
  /** Why the machine is held (control characters are kept as given; escape them when printing). */
  reason: Scalars['String']['output'];
  /** When it was set; null for an annotation hold (Kubernetes does not say). */
  setAt?: Maybe<Scalars['DateTime']['output']>;
  /** Who set it: the token's name for a hold set through the API, the annotation and its Node for an annotation hold. */
  setBy: Scalars['String']['output'];
  /** API or ANNOTATION. */
  source: MachineHoldSource;
  /** When it ends by itself; null: until released (or the annotation is removed). */
  until?: Maybe<Scalars['DateTime']['output']>;
};

/** One committed change of a machine hold set through the API. */
export type MachineHoldEvent = {
  __typename?: 'MachineHoldEvent';
  /** Who made the change: the token's name, or `kintsugi` (the leader) for an expiry. */
  actor: Scalars['String']['output'];
  /** The hold as set, or as it was when released or removed. */
  hold: MachineHold;
  /** SET, RELEASED or EXPIRED. */
  kind: MachineHoldEventKind;
};

/** What happened to a stored hold. */
export enum MachineHoldEventKind {
  /** Its `until` passed and the leader removed it. */
  Expired = 'expired',
  /** Released through the API (releaseMachine, `kintsugi machine release`). */
  Released = 'released',
  /** Set, or replaced by a new hold of the same machine. */
  Set = 'set'
}

/** Where a hold comes from. */
export enum MachineHoldSource {
  /** Read from the Node annotation `kintsugi.cybozu.io/hold`, whose value is the reason. */
  Annotation = 'annotation',
  /** Set through the API (holdMachine, `kintsugi machine hold`) and stored. */
  Api = 'api'
}

/** MachineInfo represents miscellaneous information for Machine. */
export type MachineInfo = {
  __typename?: 'MachineInfo';
  bmc: BmcInfo;
  network: NetworkInfo;
};

/** MachineParams is a set of input parameters to search machines. */
export type MachineParams = {
  labels?: InputMaybe<Array<LabelInput>>;
  minDaysBeforeRetire?: InputMaybe<Scalars['Int']['input']>;
  racks?: InputMaybe<Array<Scalars['Int']['input']>>;
  roles?: InputMaybe<Array<Scalars['String']['input']>>;
  states?: InputMaybe<Array<MachineState>>;
};

/** A stored MachineParams, with the same fields. */
export type MachineParamsValue = {
  __typename?: 'MachineParamsValue';
  /** Labels a machine must carry (having: all of them; notHaving: any excludes). */
  labels?: Maybe<Array<Label>>;
  /** Days before retirement: at least this many (having), fewer than this many (notHaving). */
  minDaysBeforeRetire?: Maybe<Scalars['Int']['output']>;
  /** Racks, any of which matches. */
  racks?: Maybe<Array<Scalars['Int']['output']>>;
  /** Roles, any of which matches. */
  roles?: Maybe<Array<Scalars['String']['output']>>;
  /** States, any of which matches. */
  states?: Maybe<Array<MachineState>>;
};

/** One repair of a machine. */
export type MachineRepair = {
  __typename?: 'MachineRepair';
  /** The address it was enqueued with. */
  address: Scalars['IPAddress']['output'];
  /** When it was enqueued. */
  createdAt: Scalars['DateTime']['output'];
  /** When it finished, or was dequeued unfinished. */
  finishedAt: Scalars['DateTime']['output'];
  /** The entry's index. */
  index: Scalars['Int']['output'];
  /** The machine type. */
  machineType: Scalars['String']['output'];
  /** The operation. */
  operation: Scalars['String']['output'];
  /** Seconds from the previous repair's finish to this one's creation (0 when they overlap); null for the first. */
  secondsSincePrevious?: Maybe<Scalars['Float']['output']>;
  /** How it ended: `succeeded`, `failed`, or `deleted` (dequeued before it finished). */
  status: Scalars['String']['output'];
};

/** Every kept repair of one machine. */
export type MachineRepairs = {
  __typename?: 'MachineRepairs';
  /** The mean of the times between failures, in seconds; null with fewer than two repairs. */
  meanSecondsBetweenFailures?: Maybe<Scalars['Float']['output']>;
  /** The repairs, oldest first. */
  repairs: Array<MachineRepair>;
};

/** MachineSpec represents specifications of a machine. */
export type MachineSpec = {
  __typename?: 'MachineSpec';
  bmc: Bmc;
  indexInRack: Scalars['Int']['output'];
  ipv4: Array<Scalars['IPAddress']['output']>;
  labels?: Maybe<Array<Label>>;
  rack: Scalars['Int']['output'];
  registerDate: Scalars['DateTime']['output'];
  retireDate: Scalars['DateTime']['output'];
  role: Scalars['String']['output'];
  serial: Scalars['ID']['output'];
};

/** MachineState enumerates machine states. */
export enum MachineState {
  Healthy = 'HEALTHY',
  Retired = 'RETIRED',
  Retiring = 'RETIRING',
  Unhealthy = 'UNHEALTHY',
  Uninitialized = 'UNINITIALIZED',
  Unreachable = 'UNREACHABLE',
  Updating = 'UPDATING'
}

/** A machine state change made through kintsugi. */
export type MachineStateChange = {
  __typename?: 'MachineStateChange';
  /** The machine's serial. */
  serial: Scalars['ID']['output'];
  /** The state it was set to. */
  state: MachineState;
  /** sabakan's status of the machine after the change. */
  status: MachineStatus;
  /** When kintsugi saw sabakan accept the change. */
  time: Scalars['DateTime']['output'];
};

/** How many machines are in one state. */
export type MachineStateCount = {
  __typename?: 'MachineStateCount';
  /** The machines in it. */
  machines: Scalars['Int']['output'];
  /** The state. */
  state: MachineState;
};

/** sabakan's machines counted by rack and state. */
export type MachineStateCounts = {
  __typename?: 'MachineStateCounts';
  /** The machines counted. */
  machines: Scalars['Int']['output'];
  /** Every rack with a machine, by rack number. */
  racks: Array<RackStateCounts>;
  /** Machines of sabakan's answer left out of the counts: no whole rack number from 0, or a state sabakan does not have. */
  unreadable: Scalars['Int']['output'];
};

/** MachineStatus represents status of a Machine. */
export type MachineStatus = {
  __typename?: 'MachineStatus';
  duration: Scalars['Float']['output'];
  state: MachineState;
  timestamp: Scalars['DateTime']['output'];
};

/** The root of every change. */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Appends a repair entry for the machine at `address`. Errors with INVALID_ADDRESS when the address is not an
   * IPv4 or IPv6 address, REPAIR_PROCEDURE_NOT_FOUND when no repair procedure lists `machineType`, and
   * REPAIR_OPERATION_NOT_FOUND when that procedure has no operation named `operation`.
   */
  addRepairEntry: RepairEntry;
  /**
   * Adopts the cluster configuration CKE runs (`cluster`: the text of `ckecli cluster get`, YAML or JSON) as the
   * configuration in force (a GENERATED record, trigger ADOPT), so the next round updates it as CKE's sabakan
   * integration would instead of generating a cluster of its own. Needs the template (set it first from `ckecli
   * sabakan get-template`) and sabakan; works while generation is disabled. CLUSTER_ADOPTION_REFUSED, changing
   * nothing, when the text is not a cluster configuration, has no control plane or not control-plane-count of them,
   * names a node that is not a machine sabakan lists with the cluster variables (or whose cke.cybozu.com/serial is
   * another machine's), or a worker whose role no node template takes; the message names each.
   */
  adoptCluster: ClusterAdoption;
  /**
   * Marks every finished (succeeded or failed) entry not yet marked for deletion, in one transaction, and returns
   * them ordered by index.
   */
  deleteFinishedRepairEntries: Array<RepairEntry>;
  /**
   * Requests the deletion of an entry: it is marked `deleted` and the runner dequeues it (stopping its command and
   * uncordoning its node). Errors with NOT_FOUND for an unknown index; an entry already marked is returned as is.
   */
  deleteRepairEntry: RepairEntry;
  /**
   * Marks every unfinished (queued or processing) entry not yet marked for deletion, in one transaction, and returns
   * them ordered by index.
   */
  deleteUnfinishedRepairEntries: Array<RepairEntry>;
  /**
   * Holds the machine at `address` with `reason` until `until` (null: until released); holding a held machine again
   * replaces its hold. `setBy` is the caller's token name. Errors with INVALID_HOLD naming the field when the
   * address is not an IP address, the reason is empty or longer than 512 characters, `until` is not in the future,
   * or 1,000 machines are held already. A plain store write: any replica takes it.
   */
  holdMachine: MachineHold;
  /**
   * Takes CKE's repair queue over (`entries`: the JSON `ckecli repair-queue list` prints): each CKE entry becomes an
   * entry here in the same status, step, step status, deletion mark, last transition and drain back-off, with source
   * `cke:INDEX`, so kintsugi goes on where CKE stopped (a step CKE ran is not run again; a machine with an entry,
   * finished or not, is not enqueued again by sabakan's poll). An entry imported before is left out
   * (`alreadyImported`), so the import can be repeated. REPAIR_IMPORT_REFUSED, adding nothing, while this repair queue
   * is enabled, for text that is not that JSON (at most 10,000 entries), an unfinished entry whose machine type,
   * operation or step kintsugi's repair config does not have, or a machine with an unfinished entry on both sides.
   */
  importRepairEntries: RepairImport;
  /**
   * Releases the hold set through the API on the machine at `address` and returns it. Errors with INVALID_ADDRESS for
   * an address that is not one and NOT_FOUND when the machine has no such hold (an annotation hold is released by
   * removing the annotation). Any replica takes it.
   */
  releaseMachine: MachineHold;
  /**
   * Resets the drain back-off of every entry (count to 0, expiry to none) so that waiting drains are retried at
   * once. Returns the entries whose back-off was reset.
   */
  resetRepairBackoff: Array<RepairEntry>;
  /**
   * Runs one sabakan poll now (after the one in flight, if any) and returns its outcome, which is recorded like a
   * scheduled poll's. When auto-repair is disabled or sabakan is not configured, nothing is queried and the outcome's
   * `error` says why.
   */
  runAutoRepair: AutoRepairOutcome;
  /**
   * Runs one generation round now, after any round in flight, and returns how it ended. An UNCHANGED round is kept
   * only when it follows a failure (it records that generation works again). CLUSTER_GENERATION_UNAVAILABLE when
   * generation is disabled, no template is set, or there is no sabakan.
   */
  runClusterGeneration: ClusterGenerationRound;
  /** Enables or disables sabakan-triggered repair; persistent. Returns the new value. */
  setAutoRepairEnabled: Scalars['Boolean']['output'];
  /**
   * Replaces (never merges) the query variables of sabakan-triggered repair, from `having` and `notHaving`, or from
   * `text`: the JSON of `ckecli auto-repair set-variables FILE`, read as CKE reads it (keys matched without regard to
   * case, unknown keys ignored) and kept byte for byte as `AutoRepairVariables.text`. Errors with
   * INVALID_MACHINE_PARAMS naming the field when a value is out of range or of the wrong type, or when `text` comes
   * with `having` or `notHaving`.
   */
  setAutoRepairVariables: AutoRepairVariables;
  /** Turns cluster generation on (a round follows soon) or off (no rounds; the configuration in force stays). */
  setClusterGenerationEnabled: Scalars['Boolean']['output'];
  /**
   * Validates and stores the template (CKE's cluster.yml syntax, YAML or JSON, without node addresses), then
   * regenerates the cluster from it soon. INVALID_CLUSTER_TEMPLATE names every broken rule and its template, or the
   * workers of the configuration in force whose role no node template of the new one takes (they are never dropped
   * because of a template); the stored template is then left as it was.
   */
  setClusterTemplate: ClusterTemplate;
  /**
   * Replaces (never merges) the searchMachines variables of cluster generation, then regenerates soon; from
   * `having` and `notHaving`, or from `text` (the JSON of `ckecli sabakan set-variables FILE`, read as CKE reads it
   * and kept byte for byte, as in `setAutoRepairVariables`). INVALID_MACHINE_PARAMS when a value is out of range or
   * of the wrong type, or when `text` comes with `having` or `notHaving`.
   */
  setClusterVariables: ClusterVariables;
  /**
   * Sets one constraint by its CKE name (CKE's `control-plane-count`, `minimum-workers-rate`,
   * `maximum-unreachable-nodes-for-reboot`, `maximum-repair-queue-entries`, `wait-seconds-to-repair-rebooting`, then
   * kintsugi's `maximum-unhealthy-machines-per-rack`, `minimum-workers`, `maximum-workers`,
   * `wait-seconds-to-replace-control-plane`); persistent. Any integer where CKE takes any; kintsugi refuses a value
   * only where it would be unsafe, and the message says why.
   * Errors with INVALID_CONSTRAINT for an unknown name or a value out of range.
   */
  setConstraint: Constraints;
  /** Pauses (no remediation; evaluation goes on) or resumes a health check; persistent. NOT_FOUND for an unknown name. */
  setHealthCheckPaused: HealthCheck;
  /**
   * sabakan's `setMachineState`, forwarded to sabakan (its transition rules and errors such as
   * INVALID_STATE_TRANSITION). On success kintsugi publishes `machineStateChanged`, and a change to UNHEALTHY or
   * UNREACHABLE runs the auto-repair intake at once, with all its limits, instead of at the next scheduled poll.
   */
  setMachineState: MachineStatus;
  /** Enables or disables the processing of the repair queue; persistent. Returns the new value. */
  setRepairQueueEnabled: Scalars['Boolean']['output'];
};


/** The root of every change. */
export type MutationAddRepairEntryArgs = {
  address: Scalars['IPAddress']['input'];
  machineType: Scalars['String']['input'];
  operation: Scalars['String']['input'];
  serial?: InputMaybe<Scalars['String']['input']>;
};


/** The root of every change. */
export type MutationAdoptClusterArgs = {
  cluster: Scalars['String']['input'];
};


/** The root of every change. */
export type MutationDeleteRepairEntryArgs = {
  index: Scalars['ID']['input'];
};


/** The root of every change. */
export type MutationHoldMachineArgs = {
  address: Scalars['IPAddress']['input'];
  reason: Scalars['String']['input'];
  until?: InputMaybe<Scalars['DateTime']['input']>;
};


/** The root of every change. */
export type MutationImportRepairEntriesArgs = {
  entries: Scalars['String']['input'];
};


/** The root of every change. */
export type MutationReleaseMachineArgs = {
  address: Scalars['IPAddress']['input'];
};


/** The root of every change. */
export type MutationSetAutoRepairEnabledArgs = {
  enabled: Scalars['Boolean']['input'];
};


/** The root of every change. */
export type MutationSetAutoRepairVariablesArgs = {
  having?: InputMaybe<MachineParams>;
  notHaving?: InputMaybe<MachineParams>;
  text?: InputMaybe<Scalars['String']['input']>;
};


/** The root of every change. */
export type MutationSetClusterGenerationEnabledArgs = {
  enabled: Scalars['Boolean']['input'];
};


/** The root of every change. */
export type MutationSetClusterTemplateArgs = {
  template: Scalars['String']['input'];
};


/** The root of every change. */
export type MutationSetClusterVariablesArgs = {
  having?: InputMaybe<MachineParams>;
  notHaving?: InputMaybe<MachineParams>;
  text?: InputMaybe<Scalars['String']['input']>;
};


/** The root of every change. */
export type MutationSetConstraintArgs = {
  name: Scalars['String']['input'];
  value: Scalars['Int']['input'];
};


/** The root of every change. */
export type MutationSetHealthCheckPausedArgs = {
  name: Scalars['String']['input'];
  paused: Scalars['Boolean']['input'];
};


/** The root of every change. */
export type MutationSetMachineStateArgs = {
  serial: Scalars['ID']['input'];
  state: MachineState;
};


/** The root of every change. */
export type MutationSetRepairQueueEnabledArgs = {
  enabled: Scalars['Boolean']['input'];
};

/** NICConfig represents NIC configuration. */
export type NicConfig = {
  __typename?: 'NICConfig';
  address: Scalars['IPAddress']['output'];
  gateway: Scalars['IPAddress']['output'];
  maskbits: Scalars['Int']['output'];
  netmask: Scalars['IPAddress']['output'];
};

/** NetworkInfo represents NIC configuration information. */
export type NetworkInfo = {
  __typename?: 'NetworkInfo';
  ipv4: Array<NicConfig>;
};

/** A finished entry as pacing counted it. */
export type PacingChange = {
  __typename?: 'PacingChange';
  /** The entry's index. */
  entryIndex: Scalars['Int']['output'];
  /** SUCCEEDED (the allowance doubled) or FAILED (it returned to 1). */
  status: RepairStatus;
  /** When the entry finished. */
  time: Scalars['DateTime']['output'];
};

/** A kind of failure domain. */
export enum PacingDomainKind {
  /** The entry's machine type. */
  MachineType = 'machine_type',
  /** The machine's rack in sabakan. A machine whose rack kintsugi has not seen in any sabakan answer is not paced by rack. */
  Rack = 'rack'
}

/** The root of every read. */
export type Query = {
  __typename?: 'Query';
  /** Whether sabakan-triggered repair polls sabakan and enqueues repairs for unhealthy machines. */
  autoRepairEnabled: Scalars['Boolean']['output'];
  /**
   * The outcomes of the newest `last` sabakan polls, oldest first (every kept one, at most 1,000, when null).
   * Errors with INVALID_ARGUMENT when `last` is negative.
   */
  autoRepairOutcomes: Array<AutoRepairOutcome>;
  /** The query variables that sabakan-triggered repair sends with `searchMachines`. */
  autoRepairVariables: AutoRepairVariables;
  /** Whether cluster generation runs (ckecli's `sabakan is-enabled`). On unless an operator disabled it. */
  clusterGenerationEnabled: Scalars['Boolean']['output'];
  /**
   * The newest `last` generation records (default: all kept, 100 at most), oldest first: every new configuration
   * and every failed round. INVALID_ARGUMENT for a negative `last`.
   */
  clusterGenerations: Array<ClusterGeneration>;
  /** The cluster template as it was set, or null before one was. */
  clusterTemplate?: Maybe<ClusterTemplate>;
  /** The searchMachines variables that choose the machines of the generated cluster. */
  clusterVariables: ClusterVariables;
  /** The current values of the safety constraints. */
  constraints: Constraints;
  /**
   * What this replica's own calls say of the services kintsugi depends on, one per configured service (sabakan, then
   * Kubernetes): whether calls work, and since when they fail. Nothing is probed: sabakan is judged by the polls and
   * the forwarded queries, Kubernetes by the node lists of the repair passes, polls and health checks (the leader's;
   * a follower lists no nodes, so it has not asked Kubernetes).
   */
  dependencies: Array<Dependency>;
  /**
   * The repairs that ended (finished, or dequeued before they finished) from `since` (inclusive) to `until`
   * (exclusive; now when absent), newest first by when they ended, at most `limit` of them (1 to 5,000, default
   * 1,000). The range may cover at most 7 days; a longer range or a limit out of bounds is INVALID_ARGUMENT. Read from
   * the finished-repair records (the newest 10,000 are kept), so a repair stays listed after its entry was deleted
   * from the queue: the status page's timeline.
   */
  finishedRepairs: Array<FinishedRepair>;
  /**
   * The `top` machines (1 to 100, default 10; INVALID_ARGUMENT otherwise) repaired most among the repairs that ended
   * since `since` (at most 90 days ago): candidates for retirement. Most repairs first, then the latest repaired.
   */
  frequentlyRepaired: Array<FrequentlyRepairedMachine>;
  /**
   * The configuration in force (the newest generated one), or with `generation` a kept earlier one; null when there
   * is none (before the first generation, or a generation no longer kept).
   */
  generatedCluster?: Maybe<GeneratedCluster>;
  /** The configured node health checks, each with its latest evaluation. */
  healthChecks: Array<HealthCheck>;
  /**
   * sabakan's `machine`, forwarded to sabakan: its answer and its errors (such as MACHINE_NOT_FOUND) as it gave them.
   * Errors with SABAKAN_NOT_CONFIGURED when kintsugi has no sabakan, SABAKAN_UNAVAILABLE when it cannot be asked.
   */
  machine: Machine;
  /**
   * The machine holds in force, ordered by address: those set through the API (stored, on every replica) and, on
   * the leader, those its last repair pass read from the Nodes' `kintsugi.cybozu.io/hold` annotations. A follower
   * lists the stored holds only (it does not watch the Nodes). Holds that have ended are not listed.
   */
  machineHolds: Array<MachineHold>;
  /**
   * Every kept repair of one machine, oldest first, with the time between its failures: give its `address`, or its
   * `serial` (at most 256 characters, no control characters; looked up in sabakan: every address of the machine counts). Exactly one of them (INVALID_ARGUMENT
   * otherwise). At most the 10,000 kept ended repairs are searched.
   */
  machineRepairs: MachineRepairs;
  /**
   * kintsugi: sabakan's machines counted by rack and state, each rack with its machines in the repair queue and held:
   * what the status page's rack grid draws of a data center, an answer that grows with the racks, not the machines.
   * One search of every machine (their racks, first IPv4 and states) answers every client for 5 s, and is made again
   * after a state change made through kintsugi; the queue and the holds are read at each request. Errors with
   * SABAKAN_NOT_CONFIGURED when kintsugi has no sabakan, SABAKAN_UNAVAILABLE when it cannot be asked.
   */
  machineStateCounts: MachineStateCounts;
  /** The repair entry with this index. Errors with NOT_FOUND when no entry has it (dequeued entries included). */
  repairEntry: RepairEntry;
  /**
   * The history of an index, oldest first, also after its entry was dequeued. Errors with NOT_FOUND when the index
   * was never used.
   */
  repairHistory: Array<RepairHistoryRecord>;
  /**
   * Pacing by results (`repair.pacing`): each failure domain's allowance of repairs in progress and why it last
   * changed. Served by the leader (a follower errors with NOT_LEADER).
   */
  repairPacing: RepairPacing;
  /**
   * Whether the repair queue is processed. While it is disabled no drain starts and no repair command runs, but
   * health checks, finishing and dequeuing go on.
   */
  repairQueueEnabled: Scalars['Boolean']['output'];
  /**
   * Statistics of the repairs that ended (finished or dequeued) from `since` (inclusive) to `until` (exclusive; now
   * when absent), grouped by `groupBy` (one group of all when empty or absent), most entries first. The range may
   * cover at most 90 days (INVALID_ARGUMENT otherwise); the newest 10,000 ended repairs are kept, and the history of
   * at most 100,000 records is read, so draining and steps count only the repairs whose history was (`withHistory`).
   * Grouping by RACK asks sabakan once for every machine's rack (SABAKAN_UNAVAILABLE when it cannot answer); a
   * machine sabakan does not know is in rack `unknown`.
   */
  repairStats: Array<RepairStatsGroup>;
  /** sabakan's `searchMachines`, forwarded to sabakan (its matching, its order by serial, its errors). */
  searchMachines: Array<Machine>;
  /**
   * The repair entries that match `having` and do not match `notHaving`, ordered by index. Within one list the
   * values are OR'd, the fields are AND'd, and a null or empty list is no constraint, as in sabakan's
   * `searchMachines`: an entry is listed when every non-empty field of `having` contains its value and no non-empty
   * field of `notHaving` does.
   */
  searchRepairEntries: Array<RepairEntry>;
  /**
   * Replays the sabakan polls and the health checks' remediations recorded since `since` (at most 31 days before
   * now; records are kept `poll_records.keep_days`), merged in time order, through the same intake and remediation
   * decisions on ONE simulated queue (they share maximum-repair-queue-entries and the rule that an address in the
   * queue is not enqueued again, as live), with `constraints` (a constraint not given keeps each record's value),
   * `healthChecks` (a check's gate limit by name; a check not named keeps its recorded gate) and `pacing` (the
   * runner's limits; the config's when not given), and returns, evaluation by evaluation, where a machine's or a
   * target's fate would have differed. Remediations are decided with the checks and repair procedures configured
   * now; the records of a check no longer configured are carried as recorded (`unconfiguredChecks`). A simulated
   * repair starts as the runner would start it (in the order enqueued, under max_concurrent_repairs and the pacing
   * allowances, behind the recorded entries, pacing seeded from the finished-repair records before `since`), takes
   * `repairSeconds` (60-2,592,000, default 3,600) once started, and its entry leaves early when, enqueued by a poll,
   * its machine leaves sabakan's answer. Bounds: at most 50,000 polls and remediations together are replayed (the
   * oldest first; `truncated` says when more were recorded), at most 5,000,000 machines and unhealthy targets summed
   * over them (the CPU bound: beyond it the query fails with INVALID_ARGUMENT asking for a later `since`), at most
   * 20,000,000 scheduling steps (waiting repairs weighed: past them the replay stops and `truncated` is true), at
   * most 100 `healthChecks`, at most 1,000 differing evaluations returned. Errors with INVALID_ARGUMENT naming the
   * argument when one is out of range or names no configured check. Both backends (SQLite, etcd) keep the records,
   * so a follower replica answers as the leader does.
   */
  simulateAutoRepair: AutoRepairReplay;
};


/** The root of every read. */
export type QueryAutoRepairOutcomesArgs = {
  last?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryClusterGenerationsArgs = {
  last?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryFinishedRepairsArgs = {
  limit?: InputMaybe<Scalars['Int']['input']>;
  since: Scalars['DateTime']['input'];
  until?: InputMaybe<Scalars['DateTime']['input']>;
};


/** The root of every read. */
export type QueryFrequentlyRepairedArgs = {
  since: Scalars['DateTime']['input'];
  top?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryGeneratedClusterArgs = {
  generation?: InputMaybe<Scalars['Int']['input']>;
};


/** The root of every read. */
export type QueryMachineArgs = {
  serial: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryMachineRepairsArgs = {
  address?: InputMaybe<Scalars['IPAddress']['input']>;
  serial?: InputMaybe<Scalars['String']['input']>;
};


/** The root of every read. */
export type QueryRepairEntryArgs = {
  index: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryRepairHistoryArgs = {
  index: Scalars['ID']['input'];
};


/** The root of every read. */
export type QueryRepairStatsArgs = {
  groupBy?: InputMaybe<Array<RepairStatsDimension>>;
  since: Scalars['DateTime']['input'];
  until?: InputMaybe<Scalars['DateTime']['input']>;
};


/** The root of every read. */
export type QuerySearchMachinesArgs = {
  having?: InputMaybe<MachineParams>;
  notHaving?: InputMaybe<MachineParams>;
};


/** The root of every read. */
export type QuerySearchRepairEntriesArgs = {
  having?: InputMaybe<RepairEntryParams>;
  notHaving?: InputMaybe<RepairEntryParams>;
};


/** The root of every read. */
export type QuerySimulateAutoRepairArgs = {
  constraints?: InputMaybe<ReplayConstraintsInput>;
  healthChecks?: InputMaybe<Array<ReplayHealthCheckInput>>;
  pacing?: InputMaybe<ReplayPacingInput>;
  repairSeconds?: InputMaybe<Scalars['Int']['input']>;
  since: Scalars['DateTime']['input'];
};

/** One rack's machines by state. */
export type RackStateCounts = {
  __typename?: 'RackStateCounts';
  /** Its machines whose first IPv4 has a hold in force (as machineHolds lists them). */
  held: Scalars['Int']['output'];
  /** Its machines. */
  machines: Scalars['Int']['output'];
  /** The rack's number in sabakan. */
  rack: Scalars['Int']['output'];
  /** Its machines whose first IPv4 has an unfinished (QUEUED or PROCESSING) repair entry. */
  repairing: Scalars['Int']['output'];
  /** How many are in each state: the states it has machines in, in MachineState's order. */
  states: Array<MachineStateCount>;
};

/** A request to repair one machine, driven through the steps of its repair operation. */
export type RepairEntry = {
  __typename?: 'RepairEntry';
  /** The machine's address; every command gets it as its last argument. */
  address: Scalars['IPAddress']['output'];
  /** When the entry was created. */
  createdAt: Scalars['DateTime']['output'];
  /** The configuration of the current step; null when the procedure, the operation or the step is missing. */
  currentStep?: Maybe<RepairStepConfig>;
  /** Deletion was requested; the runner dequeues the entry. */
  deleted: Scalars['Boolean']['output'];
  /** How many times the drain has backed off since the last reset. */
  drainBackoffCount: Scalars['Int']['output'];
  /** Until when the drain waits before it is retried; null when not backing off. */
  drainBackoffExpire?: Maybe<Scalars['DateTime']['output']>;
  /**
   * The proof of repair gathered since the entry's first repair command, whichever step gathered it, when its
   * operation requires proof (`success_requires`, `success_dwell_seconds`): the boot IDs before and after, when each
   * signal turned true, the dwell. Null for an operation without proof, and before the first repair command started.
   * The history notes each change of it.
   */
  evidence?: Maybe<RepairEvidence>;
  /**
   * Why a FAILED entry failed: the reason of the change that made it FAILED (a failed command's ends with `; stderr: `
   * and the tail of what the command wrote there, escaped; see `FinishedRepair.reason`); the history's `detail` holds
   * the command line and more of its output. Null for an entry that has not failed, or whose finished-repair record
   * is no longer kept.
   */
  failure?: Maybe<Scalars['String']['output']>;
  /** Every change of the entry, oldest first: creation, transitions, deletion, back-off resets. */
  history: Array<RepairHistoryRecord>;
  /** Monotonic number, written in decimal, never reused (not even after a restart or a deletion). */
  index: Scalars['ID']['output'];
  /** The time of the last change of status, step or step status, in whole seconds. */
  lastTransitionTime?: Maybe<Scalars['DateTime']['output']>;
  /**
   * kintsugi: the sabakan machine whose first IPv4 is this entry's address; null when sabakan does not know the
   * address, or cannot be asked (then with an error for this field alone). All lookups of one request cost one
   * sabakan query.
   */
  machine?: Maybe<Machine>;
  /** Selects the repair procedure: the first whose machine_types lists it. */
  machineType: Scalars['String']['output'];
  /** The Kubernetes Node whose InternalIP or name is the address, or "" when the machine is not a node. */
  nodename: Scalars['String']['output'];
  /** Selects the repair operation within that procedure. */
  operation: Scalars['String']['output'];
  /** The machine's sabakan serial, when known. */
  serial?: Maybe<Scalars['String']['output']>;
  /** Who created it: `operator`, `sabakan` or `health-check:NAME`. */
  source: Scalars['String']['output'];
  /** Where the entry is in its life. */
  status: RepairStatus;
  /** The 0-based index of the current repair step, as CKE's `step`; the story, the CLI's tables and the commands' KINTSUGI_STEP count from 1 (`step + 1`). */
  step: Scalars['Int']['output'];
  /** How many steps the entry's repair operation has; null when the procedure or the operation is missing. */
  stepCount?: Maybe<Scalars['Int']['output']>;
  /** Where the entry is within its current step. */
  stepStatus: RepairStepStatus;
  /**
   * Why the runner's last pass left this entry where it is: waiting out its drain back-off, its machine being
   * repaired by another entry, `max_concurrent_repairs` reached, or a control-plane rule (one control plane at a
   * time, another control plane being rebooted or not Ready, naming it). Null when the entry moved or nothing holds
   * it; a disabled queue is no hold here (see `repairQueueEnabled`). Not kept: it is the last pass's view. The same
   * text as `waitingFor.message` when a rule holds the entry.
   */
  waitReason?: Maybe<Scalars['String']['output']>;
  /**
   * What the entry is waiting for right now and until when: a rule that holds it (the disabled queue,
   * `max_concurrent_repairs`, a control-plane rule, another entry repairing its machine, its drain back-off, a
   * machine hold, a pacing allowance) or its own step (a command running, a drain, a watch, the proof-of-repair
   * dwell). Null for finished entries, for deleted ones (but one that stays while a command another replica started
   * for it may still run), and when it waits for nothing (it moves at the next pass). Every
   * replica answers the same: the leader publishes the waits to the store whenever they change.
   */
  waitingFor?: Maybe<RepairWait>;
};

/** One committed change of a repair entry. */
export type RepairEntryEvent = {
  __typename?: 'RepairEntryEvent';
  /** The entry after the change (for DEQUEUED, as it was when it left the queue). */
  entry: RepairEntry;
  /** What changed: CREATED, TRANSITION, DELETE_REQUESTED, DEQUEUED, BACKOFF_RESET or NOTE. */
  kind: RepairHistoryKind;
  /**
   * The entry just before the change; null for CREATED. With `entry` it tells what moved, e.g. a drain that backed
   * off is `previous.stepStatus` DRAINING and `entry.stepStatus` WAITING.
   */
  previous?: Maybe<RepairEntry>;
  /** The history record the change appended. */
  record: RepairHistoryRecord;
};

/** Filters for repair entries. Each list matches when it contains the entry's value; null or empty is no constraint. */
export type RepairEntryParams = {
  /** Entries for one of these addresses (compared in canonical form). */
  addresses?: InputMaybe<Array<Scalars['IPAddress']['input']>>;
  /** Entries for one of these machine types. */
  machineTypes?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Entries for one of these operations. */
  operations?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Entries whose status is one of these. */
  statuses?: InputMaybe<Array<RepairStatus>>;
};

/** The proof of repair of an entry, from its first repair command on: kept in the store, so a restart or a new leader goes on with it. */
export type RepairEvidence = {
  __typename?: 'RepairEvidence';
  /** The Node's boot ID as last observed while proving; null before any observation. */
  bootIdAfter?: Maybe<Scalars['String']['output']>;
  /** The Node's status.nodeInfo.bootID when the entry's first repair command started; null when none was known. */
  bootIdBefore?: Maybe<Scalars['String']['output']>;
  /** When the health check and every required signal began to hold together; null when they do not now. */
  dwellStartedAt?: Maybe<Scalars['DateTime']['output']>;
  /** How many times the dwell started: more than 1 after a relapse restarted it. */
  dwellStarts: Scalars['Int']['output'];
  /** When the repair was proven (every signal held for the dwell); null until then. */
  provenAt?: Maybe<Scalars['DateTime']['output']>;
  /** Each signal that holds now (the health check and the required ones) and since when, in a fixed order. */
  signals: Array<RepairEvidenceSignal>;
  /** The 0-based step whose repair command started the gathering (the entry's first; it counts for every later step). */
  step: Scalars['Int']['output'];
};

/** One signal of a proof of repair that holds now. */
export type RepairEvidenceSignal = {
  __typename?: 'RepairEvidenceSignal';
  /** `health_check`, `node_ready`, `boot_id_changed` or `sabakan_healthy`. */
  signal: Scalars['String']['output'];
  /** When it turned true; it has held since. */
  since: Scalars['DateTime']['output'];
};

/** What kind of change a history record describes. */
export enum RepairHistoryKind {
  /** An operator reset the drain back-off. */
  BackoffReset = 'backoff-reset',
  /** The entry was created. */
  Created = 'created',
  /** Deletion was requested. */
  DeleteRequested = 'delete-requested',
  /** The entry left the queue; its history stays. */
  Dequeued = 'dequeued',
  /** Something worth knowing happened without a transition (a command's output, an eviction refusal). */
  Note = 'note',
  /** The status, step or step status changed. */
  Transition = 'transition'
}

/** One change of a repair entry, as appended to its history; never modified afterwards. */
export type RepairHistoryRecord = {
  __typename?: 'RepairHistoryRecord';
  /**
   * Who made the change: the name of the API token (never its secret; "anonymous" without a token), "kintsugi" for
   * the runner, "sabakan" or "health-check:NAME" for the trigger that enqueued the entry, "unknown" for API changes
   * recorded before kintsugi kept actors.
   */
  actor: Scalars['String']['output'];
  /** Whether the entry was marked for deletion after the change. */
  deleted: Scalars['Boolean']['output'];
  /** Supporting detail such as a command's exit code and the tail of its stderr; null when there is none. */
  detail?: Maybe<Scalars['String']['output']>;
  /** What kind of change it was. */
  kind: RepairHistoryKind;
  /** Why it happened, in words. */
  reason: Scalars['String']['output'];
  /**
   * The replica that wrote the change through its term as leader (its runner, sabakan poller, health checks): tells a
   * deposed leader's late write from its successor's. Null for other changes (the API's) and for records written
   * before kintsugi kept it.
   */
  replica?: Maybe<Scalars['String']['output']>;
  /** Monotonic sequence number over all entries' history. */
  sequence: Scalars['ID']['output'];
  /** The entry's status after the change. */
  status: RepairStatus;
  /** The entry's step after the change. */
  step: Scalars['Int']['output'];
  /** The entry's step status after the change. */
  stepStatus: RepairStepStatus;
  /** When the change happened. */
  time: Scalars['DateTime']['output'];
};

/** The result of importRepairEntries. */
export type RepairImport = {
  __typename?: 'RepairImport';
  /** The indexes (CKE's) of the entries of the text that were imported before, and left out. */
  alreadyImported: Array<Scalars['ID']['output']>;
  /** The entries added, ordered by index. */
  imported: Array<RepairEntry>;
};

/**
 * Slow start per failure domain: a queued entry starts only while each of its domains has fewer entries in progress
 * than its allowance. The allowance starts at 1, doubles after each success of an entry in the domain (up to
 * `max_concurrent_repairs`) and returns to 1 after a failure; it is never 0.
 */
export type RepairPacing = {
  __typename?: 'RepairPacing';
  /** Every domain value with a remembered finished entry or an entry in the queue, sorted by kind and value. */
  domains: Array<DomainPacing>;
  /** Whether `repair.pacing` is configured; false = CKE's behaviour, and `domains` is empty. */
  enabled: Scalars['Boolean']['output'];
  /** The kinds of failure domain repairs are paced by, as configured. */
  paceBy: Array<PacingDomainKind>;
};

/** What repairStats can group by. */
export enum RepairStatsDimension {
  /** The entry's machine type. */
  MachineType = 'machineType',
  /** The entry's operation. */
  Operation = 'operation',
  /** The machine's rack as sabakan says now. */
  Rack = 'rack',
  /** The step the repair ended in (0 is the first). */
  Step = 'step'
}

/** What the repairs of one group did. The key fields are null when not grouped by. */
export type RepairStatsGroup = {
  __typename?: 'RepairStatsGroup';
  /** The repairs dequeued before they finished. */
  deleted: Scalars['Int']['output'];
  /** The seconds the group's repairs spent draining, summed over those whose history was read. */
  drainingSeconds: Scalars['Float']['output'];
  /** Every repair that ended in the group: succeeded, failed, or dequeued unfinished. */
  entries: Scalars['Int']['output'];
  /** The repairs that failed. */
  failed: Scalars['Int']['output'];
  /** The machine type, when grouped by MACHINE_TYPE. */
  machineType?: Maybe<Scalars['String']['output']>;
  /** The operation, when grouped by OPERATION. */
  operation?: Maybe<Scalars['String']['output']>;
  /** The rack (decimal), or `unknown` for a machine sabakan does not know, when grouped by RACK. */
  rack?: Maybe<Scalars['String']['output']>;
  /** The step the repairs ended in (decimal), or `unknown` when their history was not read, when grouped by STEP. */
  step?: Maybe<Scalars['String']['output']>;
  /** The most steps a succeeded repair needed (those whose history was read); null when none. */
  stepsNeededMax?: Maybe<Scalars['Int']['output']>;
  /** The median number of steps the succeeded repairs needed (those whose history was read); null when none. */
  stepsNeededP50?: Maybe<Scalars['Int']['output']>;
  /** The repairs that succeeded. */
  succeeded: Scalars['Int']['output'];
  /** succeeded / (succeeded + failed), from 0 to 1; null when none finished. */
  successRate?: Maybe<Scalars['Float']['output']>;
  /** Creation to finish of the repairs that finished (succeeded or failed); null when none did. */
  timeToRepair?: Maybe<DurationSummary>;
  /** How many of the group's repairs had their history read. */
  withHistory: Scalars['Int']['output'];
};

/** The status of a repair entry. SUCCEEDED and FAILED are finished; finished entries stay until deleted. */
export enum RepairStatus {
  /** A repair command failed, the steps ran out, or the success command failed. */
  Failed = 'failed',
  /** Being repaired: draining, running a repair command or watching. */
  Processing = 'processing',
  /** Waiting for a concurrency slot. */
  Queued = 'queued',
  /** The health check reported the machine healthy and the success command (if any) succeeded. */
  Succeeded = 'succeeded'
}

/** One step of a repair operation, as configured (CKE's RepairStep, with defaults applied). */
export type RepairStepConfig = {
  __typename?: 'RepairStepConfig';
  /** Seconds between attempts. */
  commandInterval: Scalars['Int']['output'];
  /** How many times a failed command is tried again. */
  commandRetries: Scalars['Int']['output'];
  /** Seconds before the command is killed; 0 = no limit. */
  commandTimeoutSeconds: Scalars['Int']['output'];
  /** Whether the node is drained before the command runs. */
  needDrain: Scalars['Boolean']['output'];
  /** The command and its arguments; the machine's address is appended. */
  repairCommand: Array<Scalars['String']['output']>;
  /** Seconds to watch the health check after the command before moving to the next step. */
  watchSeconds: Scalars['Int']['output'];
};

/** Where a repair entry is within its current step. */
export enum RepairStepStatus {
  /** Evicting the pods of the machine's node. */
  Draining = 'draining',
  /** Not started, or waiting for the drain back-off to expire. */
  Waiting = 'waiting',
  /** The repair command ran; watching the health check for `watch_seconds`. */
  Watching = 'watching'
}

/** Why an unfinished repair entry is not moving right now, as of the leader's last pass. */
export type RepairWait = {
  __typename?: 'RepairWait';
  /** With PACING: the failure domain whose allowance is used up, as KIND=VALUE (`rack=3`, `machine_type=qemu`); else null. */
  domain?: Maybe<Scalars['String']['output']>;
  /** The entry in the way: with MACHINE_BUSY the one repairing the machine; with CONTROL_PLANE the control plane in progress (one at a time), or the entry of the control plane that is not Ready (for an entry that does not hold the turn); else null. Two entries that name each other wait for each other, and their messages say so. */
  entryIndex?: Maybe<Scalars['Int']['output']>;
  /** What the entry waits for. */
  kind: RepairWaitKind;
  /** The same, in a sentence for people (at most 400 characters, ending in … when cut). */
  message: Scalars['String']['output'];
  /** When the wait ends by itself (a back-off, a watch, a drain's eviction deadline, a dwell, a hold with an end); null when something else ends it. */
  until?: Maybe<Scalars['DateTime']['output']>;
};

/** What an unfinished repair entry waits for. */
export enum RepairWaitKind {
  /** The entry waits out its drain back-off, `until` it expires. */
  Backoff = 'BACKOFF',
  /** A command of the entry is running (diagnostics, repair or success command). */
  Command = 'COMMAND',
  /** `max_concurrent_repairs` entries are in progress. */
  Concurrency = 'CONCURRENCY',
  /** A control-plane rule: one control plane at a time, none while another one is rebooted or not Ready. */
  ControlPlane = 'CONTROL_PLANE',
  /** The node is drained: pods are evicted `until` the eviction deadline, then the drain backs off. */
  Draining = 'DRAINING',
  /** The machine is healthy; the repair is proven once it stays healthy `until` the end of `success_dwell_seconds`. */
  Dwell = 'DWELL',
  /** The machine is held (through kintsugi or a Node annotation), `until` the hold ends when it has an end. */
  Hold = 'HOLD',
  /** Another entry (`entryIndex`) is repairing the same machine. */
  MachineBusy = 'MACHINE_BUSY',
  /** The pacing allowance of the failure domain `domain` is used up. */
  Pacing = 'PACING',
  /** The health check says healthy, but the proof of repair its operation requires (`success_requires`) is missing: the message names what. */
  Proof = 'PROOF',
  /** The repair queue is disabled (`repairQueueEnabled` false): nothing starts or moves on. */
  QueueDisabled = 'QUEUE_DISABLED',
  /** The step's repair command ran; the health check is watched `until` the end of `watch_seconds`. */
  Watching = 'WATCHING'
}

/** The constraints a replay tries instead of the recorded ones; each is an integer >= 0 (at most 1,000,000). */
export type ReplayConstraintsInput = {
  /** maximum-repair-queue-entries. */
  maximumRepairQueueEntries?: InputMaybe<Scalars['Int']['input']>;
  /** maximum-unhealthy-machines-per-rack (0 = off). */
  maximumUnhealthyMachinesPerRack?: InputMaybe<Scalars['Int']['input']>;
  /** wait-seconds-to-repair-rebooting. */
  waitSecondsToRepairRebooting?: InputMaybe<Scalars['Int']['input']>;
};

/**
 * A health check's gate limit a replay tries instead of the configured one: maxUnhealthy or unhealthyRange, exactly
 * one of them, spelled as in the config file.
 */
export type ReplayHealthCheckInput = {
  /** maxUnhealthy: a whole number or a percentage of the targets, 0-100% (e.g. `3` or `40%`; at most 16 characters). */
  maxUnhealthy?: InputMaybe<Scalars['String']['input']>;
  /** The check's name, as configured (`health_checks[].name`). */
  name: Scalars['String']['input'];
  /** unhealthyRange: `[min-max]` with min <= max (e.g. `[1-3]`; at most 32 characters). */
  unhealthyRange?: InputMaybe<Scalars['String']['input']>;
};

/**
 * How the replay's runner starts simulated repairs instead of the one in force; a field not given keeps the config's
 * (`repair.max_concurrent_repairs`, `repair.pacing.domains`). When it differs from the config, the entries the live
 * run enqueued are simulated too rather than kept as long as they were recorded.
 */
export type ReplayPacingInput = {
  /** The failure domains repairs are paced by, each at most once; an empty list turns pacing off. */
  domains?: InputMaybe<Array<PacingDomainKind>>;
  /** max_concurrent_repairs: an integer from 1 to 10,000. */
  maxConcurrentRepairs?: InputMaybe<Scalars['Int']['input']>;
};

/** What one poll's intake or one remediation did, or would have done. */
export type ReplayedIntake = {
  __typename?: 'ReplayedIntake';
  /** The addresses enqueued. */
  enqueued: Array<Scalars['IPAddress']['output']>;
  /** The entries in the (live or simulated) queue when the poll decided. */
  queueSize: Scalars['Int']['output'];
  /** Whether maximum-repair-queue-entries stopped the poll or the remediation (nothing enqueued), or the check's gate was closed. */
  shortCircuited: Scalars['Boolean']['output'];
};

/** One evaluation, a sabakan poll or a health check's, where the replay differs from what was. */
export type ReplayedPoll = {
  __typename?: 'ReplayedPoll';
  /** Each machine whose fate differs, by serial (a sabakan poll; empty for a health check). */
  differences: Array<MachineFateDifference>;
  /** The health check's name; null for a sabakan poll. */
  healthCheck?: Maybe<Scalars['String']['output']>;
  /** What the live poll did. */
  live: ReplayedIntake;
  /** What the poll would have done with the replay's limits. */
  simulated: ReplayedIntake;
  /** Whose evaluation: `sabakan` for a poll, `health-check:NAME` for a health check's remediation. */
  source: Scalars['String']['output'];
  /** Each target whose fate differs, by node (a health check; empty for a sabakan poll). */
  targets: Array<TargetFateDifference>;
  /** When the poll or the check's evaluation ran. */
  time: Scalars['DateTime']['output'];
};

/**
 * Why sabakan-triggered repair left a machine alone. The first four defer the machine (it is repaired once the limit or
 * the wait ends); the others skip it.
 */
export enum SkipKind {
  /** Skipped: another machine with the same address was enqueued in this poll. */
  DuplicateAddress = 'duplicate_address',
  /**
   * Skipped: the machine already had `repair.escalation.max_repairs` entries created within its window. Its own repair
   * is replaced by the escalation operation (enqueued in the same poll), or, without one, by a hold the poll sets.
   */
  Escalated = 'escalated',
  /** Skipped: an operator's hold (or a Node's `kintsugi.cybozu.io/hold` annotation) vetoes repairing the machine. */
  Held = 'held',
  /** Skipped: its first IPv4 address is not an IP address. */
  InvalidAddress = 'invalid_address',
  /** Skipped: the machine has no IPv4 address. */
  NoAddress = 'no_address',
  /** Deferred: UNREACHABLE for less than `wait-seconds-to-repair-rebooting` and not a node (it may be rebooting). */
  OutOfCluster = 'out_of_cluster',
  /** Deferred: enqueuing the poll's candidates would exceed `maximum-repair-queue-entries`, so none was enqueued. */
  QueueLimit = 'queue_limit',
  /** Deferred: its rack has more unhealthy machines than `maximum-unhealthy-machines-per-rack` (likely an infrastructure failure). */
  RackLimit = 'rack_limit',
  /** Deferred: UNREACHABLE for less than `wait-seconds-to-repair-rebooting` while CKE reboots its node. */
  Rebooting = 'rebooting',
  /** Skipped: an entry for its address is in the queue (any status, until it is deleted). */
  RecentlyRepaired = 'recently_repaired'
}

/** How many machines one poll left alone for one reason. */
export type SkipKindCount = {
  __typename?: 'SkipKindCount';
  /** The reason. */
  kind: SkipKind;
  /** How many machines the poll left alone for it (all of them, listed in `skipped` or not). */
  machines: Scalars['Int']['output'];
};

/** A machine sabakan-triggered repair did not enqueue, and why. */
export type SkippedMachine = {
  __typename?: 'SkippedMachine';
  /** The machine's first IPv4 address; null when it has none. */
  address?: Maybe<Scalars['IPAddress']['output']>;
  /** Whether the machine is deferred (not an operator's hold, which is the kind `HELD`): it needs repair and gets it once the limit or the wait ends. */
  held: Scalars['Boolean']['output'];
  /** The reason as one of a fixed set (the label of the `kintsugi_auto_repair_held_machines` and `kintsugi_auto_repair_skipped_machines` metrics, lower-case). */
  kind: SkipKind;
  /** The machine's rack in sabakan; null in outcomes recorded before kintsugi kept racks. */
  rack?: Maybe<Scalars['Int']['output']>;
  /** `no address`, `recently repaired`, `rebooting`, `out of cluster, may be rebooting`, `too many repair requests`, or the rack limit's reason. */
  reason: Scalars['String']['output'];
  /** The machine's serial in sabakan. */
  serial: Scalars['String']['output'];
  /** The machine's state in sabakan. */
  state: MachineState;
};

/** Live events over WebSocket (graphql-ws protocol, path /graphql). */
export type Subscription = {
  __typename?: 'Subscription';
  /** The outcome of every sabakan poll (scheduled, operator's or event-driven), failed ones included. */
  autoRepairOutcomes: AutoRepairOutcome;
  /**
   * Every new cluster configuration, every new failure (a failure repeating the previous one is not sent again) and
   * the first successful round after a failure (outcome UNCHANGED).
   */
  clusterGenerated: ClusterGeneration;
  /** A dependency's status each time it goes down (the first failed call of a run) or comes back (a call works again). */
  dependencyEvents: Dependency;
  /** A health check whose evaluation changed (a target's state, the gate, pausing). */
  healthCheckEvents: HealthCheck;
  /**
   * Every committed change of a hold set through the API, in commit order, on every replica: set (or replaced),
   * released, or expired (removed by the leader once its `until` passed). Annotation holds are not announced here.
   */
  machineHoldEvents: MachineHoldEvent;
  /** Every state change made through kintsugi's setMachineState, after sabakan accepted it. */
  machineStateChanged: MachineStateChange;
  /**
   * Every change of a repair entry that matches `having` and not `notHaving` (as in searchRepairEntries, judged on
   * the entry after the change), published after its transaction committed, in commit order.
   */
  repairEntryEvents: RepairEntryEvent;
  /**
   * What the waiting entries wait for, each time it changes: the leader publishes the waits after a pass that changed
   * them, and every replica sends them on. The whole list each time, lowest index first (at most 1000 entries, 512 KiB); an
   * unfinished entry not in it waits for nothing.
   */
  repairWaits: Array<EntryWait>;
};


/** Live events over WebSocket (graphql-ws protocol, path /graphql). */
export type SubscriptionRepairEntryEventsArgs = {
  having?: InputMaybe<RepairEntryParams>;
  notHaving?: InputMaybe<RepairEntryParams>;
};

/** A Kubernetes taint. */
export type Taint = {
  __typename?: 'Taint';
  /** NoSchedule, PreferNoSchedule or NoExecute. */
  effect: Scalars['String']['output'];
  /** The taint's key. */
  key: Scalars['String']['output'];
  /** The taint's value; null when it has none. */
  value?: Maybe<Scalars['String']['output']>;
};

/** What a health check's remediation did with one unhealthy target. */
export enum TargetFate {
  /** Enqueued. */
  Enqueued = 'enqueued',
  /** Held by repair.escalation. */
  Escalated = 'escalated',
  /** Skipped: an operator held it. */
  Held = 'held',
  /** Held: the node's first InternalIP is not an address. */
  InvalidAddress = 'invalid_address',
  /** Held: the node has no InternalIP. */
  NoAddress = 'no_address',
  /** Held: its machine type has no procedure with the check's operation. */
  NoProcedure = 'no_procedure',
  /** Held by maximum-repair-queue-entries (all or nothing). */
  QueueLimit = 'queue_limit',
  /** Held by maximum-unhealthy-machines-per-rack: its rack had more unhealthy targets. */
  RackLimit = 'rack_limit',
  /** Skipped: its address had an entry in the queue. */
  RecentlyRepaired = 'recently_repaired',
  /** Held: the check's gate was closed (maxUnhealthy or unhealthyRange, or paused). */
  ShortCircuited = 'short_circuited',
  /** Held: its machine type is unknown. */
  UnknownType = 'unknown_type'
}

/** A health check's target that would have fared differently. */
export type TargetFateDifference = {
  __typename?: 'TargetFateDifference';
  /** Its address in canonical form; null when it had none. */
  address?: Maybe<Scalars['IPAddress']['output']>;
  /** What happened to it. */
  live: TargetFate;
  /** The node's name. */
  node: Scalars['String']['output'];
  /** What would have happened to it. */
  simulated: TargetFate;
};

/** A node condition rule of a health check. */
export type UnhealthyCondition = {
  __typename?: 'UnhealthyCondition';
  /** The status that counts as unhealthy: True, False or Unknown. */
  status: Scalars['String']['output'];
  /** How long the condition may hold before the node is unhealthy. */
  timeoutSeconds: Scalars['Int']['output'];
  /** The node condition type, e.g. Ready. */
  type: Scalars['String']['output'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AutoRepairOutcome: ResolverTypeWrapper<AutoRepairOutcomeModel>;
  AutoRepairReplay: ResolverTypeWrapper<ReplayReportModel>;
  AutoRepairShortCircuit: ResolverTypeWrapper<AutoRepairShortCircuit>;
  AutoRepairVariables: ResolverTypeWrapper<MachineQueryVariablesModel>;
  BMC: ResolverTypeWrapper<Bmc>;
  BMCInfo: ResolverTypeWrapper<BmcInfo>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  ClusterAdoption: ResolverTypeWrapper<Omit<ClusterAdoption, 'cluster'> & { cluster: ResolversTypes['GeneratedCluster'] }>;
  ClusterGeneration: ResolverTypeWrapper<ClusterGenerationModel>;
  ClusterGenerationOutcome: ClusterGenerationOutcome;
  ClusterGenerationRound: ResolverTypeWrapper<Omit<ClusterGenerationRound, 'cluster' | 'record'> & { cluster?: Maybe<ResolversTypes['GeneratedCluster']>, record?: Maybe<ResolversTypes['ClusterGeneration']> }>;
  ClusterGenerationTrigger: null;
  ClusterNextRound: ResolverTypeWrapper<ClusterNextRound>;
  ClusterNode: ResolverTypeWrapper<ClusterNodeModel>;
  ClusterTemplate: ResolverTypeWrapper<StoredClusterTemplateModel>;
  ClusterVariables: ResolverTypeWrapper<MachineQueryVariablesModel>;
  ClusterWorkerSelection: null;
  Constraints: ResolverTypeWrapper<Constraints>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Dependency: ResolverTypeWrapper<DependencyStatusModel>;
  DomainPacing: ResolverTypeWrapper<DomainPacingModel>;
  DurationSummary: ResolverTypeWrapper<DurationSummaryModel>;
  EntryWait: ResolverTypeWrapper<PublishedWaitModel>;
  FinishedRepair: ResolverTypeWrapper<FinishedRepairModel>;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  FrequentlyRepairedMachine: ResolverTypeWrapper<FrequentlyRepairedModel>;
  GeneratedCluster: ResolverTypeWrapper<ClusterGenerationModel>;
  HealthCheck: ResolverTypeWrapper<HealthCheckStatusModel>;
  HealthCheckTarget: ResolverTypeWrapper<TargetEvaluationModel>;
  HealthCheckTargetState: null;
  HeldTarget: ResolverTypeWrapper<HeldTarget>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  IPAddress: ResolverTypeWrapper<Scalars['IPAddress']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Label: ResolverTypeWrapper<Label>;
  LabelInput: LabelInput;
  Machine: ResolverTypeWrapper<SabakanObjectModel>;
  MachineFate: null;
  MachineFateDifference: ResolverTypeWrapper<MachineFateDifference>;
  MachineHold: ResolverTypeWrapper<MachineHoldModel>;
  MachineHoldEvent: ResolverTypeWrapper<HoldChangeModel>;
  MachineHoldEventKind: null;
  MachineHoldSource: null;
  MachineInfo: ResolverTypeWrapper<MachineInfo>;
  MachineParams: MachineParams;
  MachineParamsValue: ResolverTypeWrapper<MachineParamsModel>;
  MachineRepair: ResolverTypeWrapper<MachineRepairModel>;
  MachineRepairs: ResolverTypeWrapper<MachineRepairHistoryModel>;
  MachineSpec: ResolverTypeWrapper<MachineSpec>;
  MachineState: MachineState;
  MachineStateChange: ResolverTypeWrapper<MachineStateChangeModel>;
  MachineStateCount: ResolverTypeWrapper<MachineStateCount>;
  MachineStateCounts: ResolverTypeWrapper<MachineStateCountsModel>;
  MachineStatus: ResolverTypeWrapper<SabakanObjectModel>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  NICConfig: ResolverTypeWrapper<NicConfig>;
  NetworkInfo: ResolverTypeWrapper<NetworkInfo>;
  PacingChange: ResolverTypeWrapper<PacingChangeModel>;
  PacingDomainKind: null;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RackStateCounts: ResolverTypeWrapper<RackStateCountModel>;
  RepairEntry: ResolverTypeWrapper<RepairEntryModel>;
  RepairEntryEvent: ResolverTypeWrapper<RepairChangeModel>;
  RepairEntryParams: RepairEntryParams;
  RepairEvidence: ResolverTypeWrapper<RepairEvidenceModel>;
  RepairEvidenceSignal: ResolverTypeWrapper<RepairEvidenceSignal>;
  RepairHistoryKind: null;
  RepairHistoryRecord: ResolverTypeWrapper<RepairHistoryRecordModel>;
  RepairImport: ResolverTypeWrapper<Omit<RepairImport, 'imported'> & { imported: Array<ResolversTypes['RepairEntry']> }>;
  RepairPacing: ResolverTypeWrapper<RepairPacingViewModel>;
  RepairStatsDimension: null;
  RepairStatsGroup: ResolverTypeWrapper<RepairStatsGroupModel>;
  RepairStatus: null;
  RepairStepConfig: ResolverTypeWrapper<RepairStepConfigModel>;
  RepairStepStatus: null;
  RepairWait: ResolverTypeWrapper<WaitingForModel>;
  RepairWaitKind: RepairWaitKind;
  ReplayConstraintsInput: ReplayConstraintsInput;
  ReplayHealthCheckInput: ReplayHealthCheckInput;
  ReplayPacingInput: ReplayPacingInput;
  ReplayedIntake: ResolverTypeWrapper<ReplayedIntake>;
  ReplayedPoll: ResolverTypeWrapper<ReplayedPollModel>;
  SkipKind: null;
  SkipKindCount: ResolverTypeWrapper<SkipKindCountModel>;
  SkippedMachine: ResolverTypeWrapper<SkippedMachineModel>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Taint: ResolverTypeWrapper<TaintModel>;
  TargetFate: null;
  TargetFateDifference: ResolverTypeWrapper<TargetFateDifference>;
  UnhealthyCondition: ResolverTypeWrapper<UnhealthyCondition>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  AutoRepairOutcome: AutoRepairOutcomeModel;
  AutoRepairReplay: ReplayReportModel;
  AutoRepairShortCircuit: AutoRepairShortCircuit;
  AutoRepairVariables: MachineQueryVariablesModel;
  BMC: Bmc;
  BMCInfo: BmcInfo;
  Boolean: Scalars['Boolean']['output'];
  ClusterAdoption: Omit<ClusterAdoption, 'cluster'> & { cluster: ResolversParentTypes['GeneratedCluster'] };
  ClusterGeneration: ClusterGenerationModel;
  ClusterGenerationRound: Omit<ClusterGenerationRound, 'cluster' | 'record'> & { cluster?: Maybe<ResolversParentTypes['GeneratedCluster']>, record?: Maybe<ResolversParentTypes['ClusterGeneration']> };
  ClusterNextRound: ClusterNextRound;
  ClusterNode: ClusterNodeModel;
  ClusterTemplate: StoredClusterTemplateModel;
  ClusterVariables: MachineQueryVariablesModel;
  Constraints: Constraints;
  DateTime: Scalars['DateTime']['output'];
  Dependency: DependencyStatusModel;
  DomainPacing: DomainPacingModel;
  DurationSummary: DurationSummaryModel;
  EntryWait: PublishedWaitModel;
  FinishedRepair: FinishedRepairModel;
  Float: Scalars['Float']['output'];
  FrequentlyRepairedMachine: FrequentlyRepairedModel;
  GeneratedCluster: ClusterGenerationModel;
  HealthCheck: HealthCheckStatusModel;
  HealthCheckTarget: TargetEvaluationModel;
  HeldTarget: HeldTarget;
  ID: Scalars['ID']['output'];
  IPAddress: Scalars['IPAddress']['output'];
  Int: Scalars['Int']['output'];
  Label: Label;
  LabelInput: LabelInput;
  Machine: SabakanObjectModel;
  MachineFateDifference: MachineFateDifference;
  MachineHold: MachineHoldModel;
  MachineHoldEvent: HoldChangeModel;
  MachineInfo: MachineInfo;
  MachineParams: MachineParams;
  MachineParamsValue: MachineParamsModel;
  MachineRepair: MachineRepairModel;
  MachineRepairs: MachineRepairHistoryModel;
  MachineSpec: MachineSpec;
  MachineStateChange: MachineStateChangeModel;
  MachineStateCount: MachineStateCount;
  MachineStateCounts: MachineStateCountsModel;
  MachineStatus: SabakanObjectModel;
  Mutation: Record<PropertyKey, never>;
  NICConfig: NicConfig;
  NetworkInfo: NetworkInfo;
  PacingChange: PacingChangeModel;
  Query: Record<PropertyKey, never>;
  RackStateCounts: RackStateCountModel;
  RepairEntry: RepairEntryModel;
  RepairEntryEvent: RepairChangeModel;
  RepairEntryParams: RepairEntryParams;
  RepairEvidence: RepairEvidenceModel;
  RepairEvidenceSignal: RepairEvidenceSignal;
  RepairHistoryRecord: RepairHistoryRecordModel;
  RepairImport: Omit<RepairImport, 'imported'> & { imported: Array<ResolversParentTypes['RepairEntry']> };
  RepairPacing: RepairPacingViewModel;
  RepairStatsGroup: RepairStatsGroupModel;
  RepairStepConfig: RepairStepConfigModel;
  RepairWait: WaitingForModel;
  ReplayConstraintsInput: ReplayConstraintsInput;
  ReplayHealthCheckInput: ReplayHealthCheckInput;
  ReplayPacingInput: ReplayPacingInput;
  ReplayedIntake: ReplayedIntake;
  ReplayedPoll: ReplayedPollModel;
  SkipKindCount: SkipKindCountModel;
  SkippedMachine: SkippedMachineModel;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  Taint: TaintModel;
  TargetFateDifference: TargetFateDifference;
  UnhealthyCondition: UnhealthyCondition;
};

export type AutoRepairOutcomeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AutoRepairOutcome'] = ResolversParentTypes['AutoRepairOutcome']> = {
  enqueued?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  machinesSeen?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  sequence?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  shortCircuit?: Resolver<Maybe<ResolversTypes['AutoRepairShortCircuit']>, ParentType, ContextType>;
  skipped?: Resolver<Array<ResolversTypes['SkippedMachine']>, ParentType, ContextType, Partial<AutoRepairOutcomeSkippedArgs>>;
  skippedByKind?: Resolver<Array<ResolversTypes['SkipKindCount']>, ParentType, ContextType>;
  skippedTotal?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  trigger?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type AutoRepairReplayResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AutoRepairReplay'] = ResolversParentTypes['AutoRepairReplay']> = {
  enqueuedLive?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  enqueuedSimulated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  polls?: Resolver<Array<ResolversTypes['ReplayedPoll']>, ParentType, ContextType>;
  pollsReplayed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  remediationsReplayed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  truncated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  unconfiguredChecks?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  unreadableRecords?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type AutoRepairShortCircuitResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AutoRepairShortCircuit'] = ResolversParentTypes['AutoRepairShortCircuit']> = {
  candidates?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  existingEntries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  limit?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type AutoRepairVariablesResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AutoRepairVariables'] = ResolversParentTypes['AutoRepairVariables']> = {
  having?: Resolver<Maybe<ResolversTypes['MachineParamsValue']>, ParentType, ContextType>;
  notHaving?: Resolver<Maybe<ResolversTypes['MachineParamsValue']>, ParentType, ContextType>;
  text?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type BmcResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BMC'] = ResolversParentTypes['BMC']> = {
  bmcType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  ipv4?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
};

export type BmcInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BMCInfo'] = ResolversParentTypes['BMCInfo']> = {
  ipv4?: Resolver<ResolversTypes['NICConfig'], ParentType, ContextType>;
};

export type ClusterAdoptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterAdoption'] = ResolversParentTypes['ClusterAdoption']> = {
  cluster?: Resolver<ResolversTypes['GeneratedCluster'], ParentType, ContextType>;
  nextRounds?: Resolver<Array<ResolversTypes['ClusterNextRound']>, ParentType, ContextType>;
  suggestedWorkerSelection?: Resolver<ResolversTypes['ClusterWorkerSelection'], ParentType, ContextType>;
  suggestion?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ClusterGenerationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterGeneration'] = ResolversParentTypes['ClusterGeneration']> = {
  changes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  cluster?: Resolver<Maybe<ResolversTypes['GeneratedCluster']>, ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  generation?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  lastTime?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['ClusterGenerationOutcome'], ParentType, ContextType>;
  policy?: Resolver<ResolversTypes['ClusterWorkerSelection'], ParentType, ContextType>;
  repeats?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  sequence?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  trigger?: Resolver<ResolversTypes['ClusterGenerationTrigger'], ParentType, ContextType>;
};

export type ClusterGenerationRoundResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterGenerationRound'] = ResolversParentTypes['ClusterGenerationRound']> = {
  cluster?: Resolver<Maybe<ResolversTypes['GeneratedCluster']>, ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['ClusterGenerationOutcome'], ParentType, ContextType>;
  record?: Resolver<Maybe<ResolversTypes['ClusterGeneration']>, ParentType, ContextType>;
};

export type ClusterGenerationTriggerResolvers = { ADOPT: 'adopt', EVENT: 'event', OPERATOR: 'operator', SCHEDULE: 'schedule', SETTINGS: 'settings', TEMPLATE: 'template' };

export type ClusterNextRoundResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterNextRound'] = ResolversParentTypes['ClusterNextRound']> = {
  details?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  outcome?: Resolver<ResolversTypes['ClusterGenerationOutcome'], ParentType, ContextType>;
  workerSelection?: Resolver<ResolversTypes['ClusterWorkerSelection'], ParentType, ContextType>;
};

export type ClusterNodeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterNode'] = ResolversParentTypes['ClusterNode']> = {
  address?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  annotations?: Resolver<Array<ResolversTypes['Label']>, ParentType, ContextType>;
  controlPlane?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  labels?: Resolver<Array<ResolversTypes['Label']>, ParentType, ContextType>;
  taints?: Resolver<Array<ResolversTypes['Taint']>, ParentType, ContextType>;
  user?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ClusterTemplateResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterTemplate'] = ResolversParentTypes['ClusterTemplate']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  setAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  template?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type ClusterVariablesResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ClusterVariables'] = ResolversParentTypes['ClusterVariables']> = {
  having?: Resolver<Maybe<ResolversTypes['MachineParamsValue']>, ParentType, ContextType>;
  notHaving?: Resolver<Maybe<ResolversTypes['MachineParamsValue']>, ParentType, ContextType>;
  text?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type ClusterWorkerSelectionResolvers = { ALL_HEALTHY: 'all_healthy', WEIGHTED: 'weighted' };

export type ConstraintsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Constraints'] = ResolversParentTypes['Constraints']> = {
  controlPlaneCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  maximumRepairQueueEntries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  maximumUnhealthyMachinesPerRack?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  maximumUnreachableNodesForReboot?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  maximumWorkers?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  minimumWorkers?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  minimumWorkersRate?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  waitSecondsToRepairRebooting?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  waitSecondsToReplaceControlPlane?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DependencyResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Dependency'] = ResolversParentTypes['Dependency']> = {
  downSince?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  failures?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  lastFailed?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastWorked?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  up?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type DomainPacingResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DomainPacing'] = ResolversParentTypes['DomainPacing']> = {
  allowance?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  domain?: Resolver<ResolversTypes['PacingDomainKind'], ParentType, ContextType>;
  inProgress?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  lastChange?: Resolver<Maybe<ResolversTypes['PacingChange']>, ParentType, ContextType>;
  value?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type DurationSummaryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['DurationSummary'] = ResolversParentTypes['DurationSummary']> = {
  maxSeconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  p50Seconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  p90Seconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
};

export type EntryWaitResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['EntryWait'] = ResolversParentTypes['EntryWait']> = {
  index?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  waitingFor?: Resolver<ResolversTypes['RepairWait'], ParentType, ContextType>;
};

export type FinishedRepairResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FinishedRepair'] = ResolversParentTypes['FinishedRepair']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  finishedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  machineType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type FrequentlyRepairedMachineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FrequentlyRepairedMachine'] = ResolversParentTypes['FrequentlyRepairedMachine']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  lastFinishedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  machineType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  repairs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  succeeded?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type GeneratedClusterResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['GeneratedCluster'] = ResolversParentTypes['GeneratedCluster']> = {
  changes?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  generatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  generation?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  nodes?: Resolver<Array<ResolversTypes['ClusterNode']>, ParentType, ContextType>;
  policy?: Resolver<ResolversTypes['ClusterWorkerSelection'], ParentType, ContextType>;
  trigger?: Resolver<ResolversTypes['ClusterGenerationTrigger'], ParentType, ContextType>;
  yaml?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type HealthCheckResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['HealthCheck'] = ResolversParentTypes['HealthCheck']> = {
  currentHealthy?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  evaluatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  expectedNodes?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  gateOpen?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  gateReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  held?: Resolver<Array<ResolversTypes['HeldTarget']>, ParentType, ContextType>;
  maxUnhealthy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  nextCheckAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  paused?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  remediationsAllowed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  targets?: Resolver<Array<ResolversTypes['HealthCheckTarget']>, ParentType, ContextType>;
  unhealthyCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  unhealthyRange?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type HealthCheckTargetResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['HealthCheckTarget'] = ResolversParentTypes['HealthCheckTarget']> = {
  address?: Resolver<Maybe<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  nextCheckAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  node?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  rule?: Resolver<Maybe<ResolversTypes['UnhealthyCondition']>, ParentType, ContextType>;
  since?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  state?: Resolver<ResolversTypes['HealthCheckTargetState'], ParentType, ContextType>;
};

export type HealthCheckTargetStateResolvers = { HEALTHY: 'healthy', PENDING: 'pending', UNHEALTHY: 'unhealthy' };

export type HeldTargetResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['HeldTarget'] = ResolversParentTypes['HeldTarget']> = {
  node?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export interface IpAddressScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['IPAddress'], any> {
  name: 'IPAddress';
}

export type LabelResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Label'] = ResolversParentTypes['Label']> = {
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MachineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Machine'] = ResolversParentTypes['Machine']> = {
  info?: Resolver<ResolversTypes['MachineInfo'], ParentType, ContextType>;
  repairEntries?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  spec?: Resolver<ResolversTypes['MachineSpec'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['MachineStatus'], ParentType, ContextType>;
};

export type MachineFateResolvers = { DUPLICATE_ADDRESS: 'duplicate_address', ENQUEUED: 'enqueued', ESCALATED: 'escalated', HELD: 'held', INVALID_ADDRESS: 'invalid_address', NO_ADDRESS: 'no_address', OUT_OF_CLUSTER: 'out_of_cluster', QUEUE_LIMIT: 'queue_limit', RACK_LIMIT: 'rack_limit', REBOOTING: 'rebooting', RECENTLY_REPAIRED: 'recently_repaired' };

export type MachineFateDifferenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineFateDifference'] = ResolversParentTypes['MachineFateDifference']> = {
  address?: Resolver<Maybe<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  live?: Resolver<ResolversTypes['MachineFate'], ParentType, ContextType>;
  serial?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  simulated?: Resolver<ResolversTypes['MachineFate'], ParentType, ContextType>;
};

export type MachineHoldResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineHold'] = ResolversParentTypes['MachineHold']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  setAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  setBy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['MachineHoldSource'], ParentType, ContextType>;
  until?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type MachineHoldEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineHoldEvent'] = ResolversParentTypes['MachineHoldEvent']> = {
  actor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  hold?: Resolver<ResolversTypes['MachineHold'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['MachineHoldEventKind'], ParentType, ContextType>;
};

export type MachineHoldEventKindResolvers = { EXPIRED: 'expired', RELEASED: 'released', SET: 'set' };

export type MachineHoldSourceResolvers = { ANNOTATION: 'annotation', API: 'api' };

export type MachineInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineInfo'] = ResolversParentTypes['MachineInfo']> = {
  bmc?: Resolver<ResolversTypes['BMCInfo'], ParentType, ContextType>;
  network?: Resolver<ResolversTypes['NetworkInfo'], ParentType, ContextType>;
};

export type MachineParamsValueResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineParamsValue'] = ResolversParentTypes['MachineParamsValue']> = {
  labels?: Resolver<Maybe<Array<ResolversTypes['Label']>>, ParentType, ContextType>;
  minDaysBeforeRetire?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  racks?: Resolver<Maybe<Array<ResolversTypes['Int']>>, ParentType, ContextType>;
  roles?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  states?: Resolver<Maybe<Array<ResolversTypes['MachineState']>>, ParentType, ContextType>;
};

export type MachineRepairResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineRepair'] = ResolversParentTypes['MachineRepair']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  finishedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  index?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  machineType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  secondsSincePrevious?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MachineRepairsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineRepairs'] = ResolversParentTypes['MachineRepairs']> = {
  meanSecondsBetweenFailures?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  repairs?: Resolver<Array<ResolversTypes['MachineRepair']>, ParentType, ContextType>;
};

export type MachineSpecResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineSpec'] = ResolversParentTypes['MachineSpec']> = {
  bmc?: Resolver<ResolversTypes['BMC'], ParentType, ContextType>;
  indexInRack?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  ipv4?: Resolver<Array<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  labels?: Resolver<Maybe<Array<ResolversTypes['Label']>>, ParentType, ContextType>;
  rack?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  registerDate?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  retireDate?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  role?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  serial?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
};

export type MachineStateChangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineStateChange'] = ResolversParentTypes['MachineStateChange']> = {
  serial?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  state?: Resolver<ResolversTypes['MachineState'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['MachineStatus'], ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type MachineStateCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineStateCount'] = ResolversParentTypes['MachineStateCount']> = {
  machines?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  state?: Resolver<ResolversTypes['MachineState'], ParentType, ContextType>;
};

export type MachineStateCountsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineStateCounts'] = ResolversParentTypes['MachineStateCounts']> = {
  machines?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  racks?: Resolver<Array<ResolversTypes['RackStateCounts']>, ParentType, ContextType>;
  unreadable?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type MachineStatusResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['MachineStatus'] = ResolversParentTypes['MachineStatus']> = {
  duration?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  state?: Resolver<ResolversTypes['MachineState'], ParentType, ContextType>;
  timestamp?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  addRepairEntry?: Resolver<ResolversTypes['RepairEntry'], ParentType, ContextType, RequireFields<MutationAddRepairEntryArgs, 'address' | 'machineType' | 'operation'>>;
  adoptCluster?: Resolver<ResolversTypes['ClusterAdoption'], ParentType, ContextType, RequireFields<MutationAdoptClusterArgs, 'cluster'>>;
  deleteFinishedRepairEntries?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  deleteRepairEntry?: Resolver<ResolversTypes['RepairEntry'], ParentType, ContextType, RequireFields<MutationDeleteRepairEntryArgs, 'index'>>;
  deleteUnfinishedRepairEntries?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  holdMachine?: Resolver<ResolversTypes['MachineHold'], ParentType, ContextType, RequireFields<MutationHoldMachineArgs, 'address' | 'reason'>>;
  importRepairEntries?: Resolver<ResolversTypes['RepairImport'], ParentType, ContextType, RequireFields<MutationImportRepairEntriesArgs, 'entries'>>;
  releaseMachine?: Resolver<ResolversTypes['MachineHold'], ParentType, ContextType, RequireFields<MutationReleaseMachineArgs, 'address'>>;
  resetRepairBackoff?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  runAutoRepair?: Resolver<ResolversTypes['AutoRepairOutcome'], ParentType, ContextType>;
  runClusterGeneration?: Resolver<ResolversTypes['ClusterGenerationRound'], ParentType, ContextType>;
  setAutoRepairEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationSetAutoRepairEnabledArgs, 'enabled'>>;
  setAutoRepairVariables?: Resolver<ResolversTypes['AutoRepairVariables'], ParentType, ContextType, Partial<MutationSetAutoRepairVariablesArgs>>;
  setClusterGenerationEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationSetClusterGenerationEnabledArgs, 'enabled'>>;
  setClusterTemplate?: Resolver<ResolversTypes['ClusterTemplate'], ParentType, ContextType, RequireFields<MutationSetClusterTemplateArgs, 'template'>>;
  setClusterVariables?: Resolver<ResolversTypes['ClusterVariables'], ParentType, ContextType, Partial<MutationSetClusterVariablesArgs>>;
  setConstraint?: Resolver<ResolversTypes['Constraints'], ParentType, ContextType, RequireFields<MutationSetConstraintArgs, 'name' | 'value'>>;
  setHealthCheckPaused?: Resolver<ResolversTypes['HealthCheck'], ParentType, ContextType, RequireFields<MutationSetHealthCheckPausedArgs, 'name' | 'paused'>>;
  setMachineState?: Resolver<ResolversTypes['MachineStatus'], ParentType, ContextType, RequireFields<MutationSetMachineStateArgs, 'serial' | 'state'>>;
  setRepairQueueEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<MutationSetRepairQueueEnabledArgs, 'enabled'>>;
};

export type NicConfigResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['NICConfig'] = ResolversParentTypes['NICConfig']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  gateway?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  maskbits?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  netmask?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
};

export type NetworkInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['NetworkInfo'] = ResolversParentTypes['NetworkInfo']> = {
  ipv4?: Resolver<Array<ResolversTypes['NICConfig']>, ParentType, ContextType>;
};

export type PacingChangeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PacingChange'] = ResolversParentTypes['PacingChange']> = {
  entryIndex?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RepairStatus'], ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type PacingDomainKindResolvers = { MACHINE_TYPE: 'machine_type', RACK: 'rack' };

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  autoRepairEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  autoRepairOutcomes?: Resolver<Array<ResolversTypes['AutoRepairOutcome']>, ParentType, ContextType, Partial<QueryAutoRepairOutcomesArgs>>;
  autoRepairVariables?: Resolver<ResolversTypes['AutoRepairVariables'], ParentType, ContextType>;
  clusterGenerationEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  clusterGenerations?: Resolver<Array<ResolversTypes['ClusterGeneration']>, ParentType, ContextType, Partial<QueryClusterGenerationsArgs>>;
  clusterTemplate?: Resolver<Maybe<ResolversTypes['ClusterTemplate']>, ParentType, ContextType>;
  clusterVariables?: Resolver<ResolversTypes['ClusterVariables'], ParentType, ContextType>;
  constraints?: Resolver<ResolversTypes['Constraints'], ParentType, ContextType>;
  dependencies?: Resolver<Array<ResolversTypes['Dependency']>, ParentType, ContextType>;
  finishedRepairs?: Resolver<Array<ResolversTypes['FinishedRepair']>, ParentType, ContextType, RequireFields<QueryFinishedRepairsArgs, 'since'>>;
  frequentlyRepaired?: Resolver<Array<ResolversTypes['FrequentlyRepairedMachine']>, ParentType, ContextType, RequireFields<QueryFrequentlyRepairedArgs, 'since'>>;
  generatedCluster?: Resolver<Maybe<ResolversTypes['GeneratedCluster']>, ParentType, ContextType, Partial<QueryGeneratedClusterArgs>>;
  healthChecks?: Resolver<Array<ResolversTypes['HealthCheck']>, ParentType, ContextType>;
  machine?: Resolver<ResolversTypes['Machine'], ParentType, ContextType, RequireFields<QueryMachineArgs, 'serial'>>;
  machineHolds?: Resolver<Array<ResolversTypes['MachineHold']>, ParentType, ContextType>;
  machineRepairs?: Resolver<ResolversTypes['MachineRepairs'], ParentType, ContextType, Partial<QueryMachineRepairsArgs>>;
  machineStateCounts?: Resolver<ResolversTypes['MachineStateCounts'], ParentType, ContextType>;
  repairEntry?: Resolver<ResolversTypes['RepairEntry'], ParentType, ContextType, RequireFields<QueryRepairEntryArgs, 'index'>>;
  repairHistory?: Resolver<Array<ResolversTypes['RepairHistoryRecord']>, ParentType, ContextType, RequireFields<QueryRepairHistoryArgs, 'index'>>;
  repairPacing?: Resolver<ResolversTypes['RepairPacing'], ParentType, ContextType>;
  repairQueueEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  repairStats?: Resolver<Array<ResolversTypes['RepairStatsGroup']>, ParentType, ContextType, RequireFields<QueryRepairStatsArgs, 'since'>>;
  searchMachines?: Resolver<Array<ResolversTypes['Machine']>, ParentType, ContextType, Partial<QuerySearchMachinesArgs>>;
  searchRepairEntries?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType, Partial<QuerySearchRepairEntriesArgs>>;
  simulateAutoRepair?: Resolver<ResolversTypes['AutoRepairReplay'], ParentType, ContextType, RequireFields<QuerySimulateAutoRepairArgs, 'since'>>;
};

export type RackStateCountsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RackStateCounts'] = ResolversParentTypes['RackStateCounts']> = {
  held?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  machines?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  rack?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  repairing?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  states?: Resolver<Array<ResolversTypes['MachineStateCount']>, ParentType, ContextType>;
};

export type RepairEntryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairEntry'] = ResolversParentTypes['RepairEntry']> = {
  address?: Resolver<ResolversTypes['IPAddress'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  currentStep?: Resolver<Maybe<ResolversTypes['RepairStepConfig']>, ParentType, ContextType>;
  deleted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  drainBackoffCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  drainBackoffExpire?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  evidence?: Resolver<Maybe<ResolversTypes['RepairEvidence']>, ParentType, ContextType>;
  failure?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  history?: Resolver<Array<ResolversTypes['RepairHistoryRecord']>, ParentType, ContextType>;
  index?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastTransitionTime?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  machine?: Resolver<Maybe<ResolversTypes['Machine']>, ParentType, ContextType>;
  machineType?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  nodename?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  operation?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  serial?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RepairStatus'], ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepCount?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  stepStatus?: Resolver<ResolversTypes['RepairStepStatus'], ParentType, ContextType>;
  waitReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  waitingFor?: Resolver<Maybe<ResolversTypes['RepairWait']>, ParentType, ContextType>;
};

export type RepairEntryEventResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairEntryEvent'] = ResolversParentTypes['RepairEntryEvent']> = {
  entry?: Resolver<ResolversTypes['RepairEntry'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['RepairHistoryKind'], ParentType, ContextType>;
  previous?: Resolver<Maybe<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
  record?: Resolver<ResolversTypes['RepairHistoryRecord'], ParentType, ContextType>;
};

export type RepairEvidenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairEvidence'] = ResolversParentTypes['RepairEvidence']> = {
  bootIdAfter?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  bootIdBefore?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  dwellStartedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  dwellStarts?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  provenAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  signals?: Resolver<Array<ResolversTypes['RepairEvidenceSignal']>, ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RepairEvidenceSignalResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairEvidenceSignal'] = ResolversParentTypes['RepairEvidenceSignal']> = {
  signal?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  since?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type RepairHistoryKindResolvers = { BACKOFF_RESET: 'backoff-reset', CREATED: 'created', DELETE_REQUESTED: 'delete-requested', DEQUEUED: 'dequeued', NOTE: 'note', TRANSITION: 'transition' };

export type RepairHistoryRecordResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairHistoryRecord'] = ResolversParentTypes['RepairHistoryRecord']> = {
  actor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  deleted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  detail?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['RepairHistoryKind'], ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  replica?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  sequence?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['RepairStatus'], ParentType, ContextType>;
  step?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  stepStatus?: Resolver<ResolversTypes['RepairStepStatus'], ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type RepairImportResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairImport'] = ResolversParentTypes['RepairImport']> = {
  alreadyImported?: Resolver<Array<ResolversTypes['ID']>, ParentType, ContextType>;
  imported?: Resolver<Array<ResolversTypes['RepairEntry']>, ParentType, ContextType>;
};

export type RepairPacingResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairPacing'] = ResolversParentTypes['RepairPacing']> = {
  domains?: Resolver<Array<ResolversTypes['DomainPacing']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  paceBy?: Resolver<Array<ResolversTypes['PacingDomainKind']>, ParentType, ContextType>;
};

export type RepairStatsDimensionResolvers = { MACHINE_TYPE: 'machineType', OPERATION: 'operation', RACK: 'rack', STEP: 'step' };

export type RepairStatsGroupResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairStatsGroup'] = ResolversParentTypes['RepairStatsGroup']> = {
  deleted?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  drainingSeconds?: Resolver<ResolversTypes['Float'], ParentType, ContextType>;
  entries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  failed?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  machineType?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  operation?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  rack?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  step?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  stepsNeededMax?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  stepsNeededP50?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  succeeded?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  successRate?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  timeToRepair?: Resolver<Maybe<ResolversTypes['DurationSummary']>, ParentType, ContextType>;
  withHistory?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RepairStatusResolvers = { FAILED: 'failed', PROCESSING: 'processing', QUEUED: 'queued', SUCCEEDED: 'succeeded' };

export type RepairStepConfigResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairStepConfig'] = ResolversParentTypes['RepairStepConfig']> = {
  commandInterval?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  commandRetries?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  commandTimeoutSeconds?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  needDrain?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  repairCommand?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  watchSeconds?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RepairStepStatusResolvers = { DRAINING: 'draining', WAITING: 'waiting', WATCHING: 'watching' };

export type RepairWaitResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RepairWait'] = ResolversParentTypes['RepairWait']> = {
  domain?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  entryIndex?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['RepairWaitKind'], ParentType, ContextType>;
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  until?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
};

export type ReplayedIntakeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReplayedIntake'] = ResolversParentTypes['ReplayedIntake']> = {
  enqueued?: Resolver<Array<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  queueSize?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  shortCircuited?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type ReplayedPollResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ReplayedPoll'] = ResolversParentTypes['ReplayedPoll']> = {
  differences?: Resolver<Array<ResolversTypes['MachineFateDifference']>, ParentType, ContextType>;
  healthCheck?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  live?: Resolver<ResolversTypes['ReplayedIntake'], ParentType, ContextType>;
  simulated?: Resolver<ResolversTypes['ReplayedIntake'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  targets?: Resolver<Array<ResolversTypes['TargetFateDifference']>, ParentType, ContextType>;
  time?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
};

export type SkipKindResolvers = { DUPLICATE_ADDRESS: 'duplicate_address', ESCALATED: 'escalated', HELD: 'held', INVALID_ADDRESS: 'invalid_address', NO_ADDRESS: 'no_address', OUT_OF_CLUSTER: 'out_of_cluster', QUEUE_LIMIT: 'queue_limit', RACK_LIMIT: 'rack_limit', REBOOTING: 'rebooting', RECENTLY_REPAIRED: 'recently_repaired' };

export type SkipKindCountResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SkipKindCount'] = ResolversParentTypes['SkipKindCount']> = {
  kind?: Resolver<ResolversTypes['SkipKind'], ParentType, ContextType>;
  machines?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type SkippedMachineResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SkippedMachine'] = ResolversParentTypes['SkippedMachine']> = {
  address?: Resolver<Maybe<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  held?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['SkipKind'], ParentType, ContextType>;
  rack?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  reason?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  serial?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  state?: Resolver<ResolversTypes['MachineState'], ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  autoRepairOutcomes?: SubscriptionResolver<ResolversTypes['AutoRepairOutcome'], "autoRepairOutcomes", ParentType, ContextType>;
  clusterGenerated?: SubscriptionResolver<ResolversTypes['ClusterGeneration'], "clusterGenerated", ParentType, ContextType>;
  dependencyEvents?: SubscriptionResolver<ResolversTypes['Dependency'], "dependencyEvents", ParentType, ContextType>;
  healthCheckEvents?: SubscriptionResolver<ResolversTypes['HealthCheck'], "healthCheckEvents", ParentType, ContextType>;
  machineHoldEvents?: SubscriptionResolver<ResolversTypes['MachineHoldEvent'], "machineHoldEvents", ParentType, ContextType>;
  machineStateChanged?: SubscriptionResolver<ResolversTypes['MachineStateChange'], "machineStateChanged", ParentType, ContextType>;
  repairEntryEvents?: SubscriptionResolver<ResolversTypes['RepairEntryEvent'], "repairEntryEvents", ParentType, ContextType, Partial<SubscriptionRepairEntryEventsArgs>>;
  repairWaits?: SubscriptionResolver<Array<ResolversTypes['EntryWait']>, "repairWaits", ParentType, ContextType>;
};

export type TaintResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Taint'] = ResolversParentTypes['Taint']> = {
  effect?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  key?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type TargetFateResolvers = { ENQUEUED: 'enqueued', ESCALATED: 'escalated', HELD: 'held', INVALID_ADDRESS: 'invalid_address', NO_ADDRESS: 'no_address', NO_PROCEDURE: 'no_procedure', QUEUE_LIMIT: 'queue_limit', RACK_LIMIT: 'rack_limit', RECENTLY_REPAIRED: 'recently_repaired', SHORT_CIRCUITED: 'short_circuited', UNKNOWN_TYPE: 'unknown_type' };

export type TargetFateDifferenceResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['TargetFateDifference'] = ResolversParentTypes['TargetFateDifference']> = {
  address?: Resolver<Maybe<ResolversTypes['IPAddress']>, ParentType, ContextType>;
  live?: Resolver<ResolversTypes['TargetFate'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  simulated?: Resolver<ResolversTypes['TargetFate'], ParentType, ContextType>;
};

export type UnhealthyConditionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['UnhealthyCondition'] = ResolversParentTypes['UnhealthyCondition']> = {
  status?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timeoutSeconds?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  AutoRepairOutcome?: AutoRepairOutcomeResolvers<ContextType>;
  AutoRepairReplay?: AutoRepairReplayResolvers<ContextType>;
  AutoRepairShortCircuit?: AutoRepairShortCircuitResolvers<ContextType>;
  AutoRepairVariables?: AutoRepairVariablesResolvers<ContextType>;
  BMC?: BmcResolvers<ContextType>;
  BMCInfo?: BmcInfoResolvers<ContextType>;
  ClusterAdoption?: ClusterAdoptionResolvers<ContextType>;
  ClusterGeneration?: ClusterGenerationResolvers<ContextType>;
  ClusterGenerationRound?: ClusterGenerationRoundResolvers<ContextType>;
  ClusterGenerationTrigger?: ClusterGenerationTriggerResolvers;
  ClusterNextRound?: ClusterNextRoundResolvers<ContextType>;
  ClusterNode?: ClusterNodeResolvers<ContextType>;
  ClusterTemplate?: ClusterTemplateResolvers<ContextType>;
  ClusterVariables?: ClusterVariablesResolvers<ContextType>;
  ClusterWorkerSelection?: ClusterWorkerSelectionResolvers;
  Constraints?: ConstraintsResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  Dependency?: DependencyResolvers<ContextType>;
  DomainPacing?: DomainPacingResolvers<ContextType>;
  DurationSummary?: DurationSummaryResolvers<ContextType>;
  EntryWait?: EntryWaitResolvers<ContextType>;
  FinishedRepair?: FinishedRepairResolvers<ContextType>;
  FrequentlyRepairedMachine?: FrequentlyRepairedMachineResolvers<ContextType>;
  GeneratedCluster?: GeneratedClusterResolvers<ContextType>;
  HealthCheck?: HealthCheckResolvers<ContextType>;
  HealthCheckTarget?: HealthCheckTargetResolvers<ContextType>;
  HealthCheckTargetState?: HealthCheckTargetStateResolvers;
  HeldTarget?: HeldTargetResolvers<ContextType>;
  IPAddress?: GraphQLScalarType;
  Label?: LabelResolvers<ContextType>;
  Machine?: MachineResolvers<ContextType>;
  MachineFate?: MachineFateResolvers;
  MachineFateDifference?: MachineFateDifferenceResolvers<ContextType>;
  MachineHold?: MachineHoldResolvers<ContextType>;
  MachineHoldEvent?: MachineHoldEventResolvers<ContextType>;
  MachineHoldEventKind?: MachineHoldEventKindResolvers;
  MachineHoldSource?: MachineHoldSourceResolvers;
  MachineInfo?: MachineInfoResolvers<ContextType>;
  MachineParamsValue?: MachineParamsValueResolvers<ContextType>;
  MachineRepair?: MachineRepairResolvers<ContextType>;
  MachineRepairs?: MachineRepairsResolvers<ContextType>;
  MachineSpec?: MachineSpecResolvers<ContextType>;
  MachineStateChange?: MachineStateChangeResolvers<ContextType>;
  MachineStateCount?: MachineStateCountResolvers<ContextType>;
  MachineStateCounts?: MachineStateCountsResolvers<ContextType>;
  MachineStatus?: MachineStatusResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  NICConfig?: NicConfigResolvers<ContextType>;
  NetworkInfo?: NetworkInfoResolvers<ContextType>;
  PacingChange?: PacingChangeResolvers<ContextType>;
  PacingDomainKind?: PacingDomainKindResolvers;
  Query?: QueryResolvers<ContextType>;
  RackStateCounts?: RackStateCountsResolvers<ContextType>;
  RepairEntry?: RepairEntryResolvers<ContextType>;
  RepairEntryEvent?: RepairEntryEventResolvers<ContextType>;
  RepairEvidence?: RepairEvidenceResolvers<ContextType>;
  RepairEvidenceSignal?: RepairEvidenceSignalResolvers<ContextType>;
  RepairHistoryKind?: RepairHistoryKindResolvers;
  RepairHistoryRecord?: RepairHistoryRecordResolvers<ContextType>;
  RepairImport?: RepairImportResolvers<ContextType>;
  RepairPacing?: RepairPacingResolvers<ContextType>;
  RepairStatsDimension?: RepairStatsDimensionResolvers;
  RepairStatsGroup?: RepairStatsGroupResolvers<ContextType>;
  RepairStatus?: RepairStatusResolvers;
  RepairStepConfig?: RepairStepConfigResolvers<ContextType>;
  RepairStepStatus?: RepairStepStatusResolvers;
  RepairWait?: RepairWaitResolvers<ContextType>;
  ReplayedIntake?: ReplayedIntakeResolvers<ContextType>;
  ReplayedPoll?: ReplayedPollResolvers<ContextType>;
  SkipKind?: SkipKindResolvers;
  SkipKindCount?: SkipKindCountResolvers<ContextType>;
  SkippedMachine?: SkippedMachineResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  Taint?: TaintResolvers<ContextType>;
  TargetFate?: TargetFateResolvers;
  TargetFateDifference?: TargetFateDifferenceResolvers<ContextType>;
  UnhealthyCondition?: UnhealthyConditionResolvers<ContextType>;
};

