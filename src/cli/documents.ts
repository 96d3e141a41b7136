// The GraphQL documents the CLI sends. `npm run codegen` types their results in ./generated/operations.ts.

const ENTRY_FIELDS = /* GraphQL */ `
  fragment EntryFields on RepairEntry {
    index address nodename serial machineType operation status step stepStatus deleted
    lastTransitionTime drainBackoffCount drainBackoffExpire
  }
`;

export const ListEntries = /* GraphQL */ `
  query ListEntries {
    searchRepairEntries { ...EntryFields failure }
  }
  ${ENTRY_FIELDS}
`;

export const AddEntry = /* GraphQL */ `
  mutation AddEntry($operation: String!, $machineType: String!, $address: IPAddress!, $serial: String) {
    addRepairEntry(operation: $operation, machineType: $machineType, address: $address, serial: $serial) { ...EntryFields }
  }
  ${ENTRY_FIELDS}
`;

export const ImportEntries = /* GraphQL */ `
  mutation ImportEntries($entries: String!) {
    importRepairEntries(entries: $entries) { imported { ...EntryFields } alreadyImported }
  }
  ${ENTRY_FIELDS}
`;

export const DeleteEntry = /* GraphQL */ `
  mutation DeleteEntry($index: ID!) {
    deleteRepairEntry(index: $index) { index }
  }
`;

export const DeleteFinished = /* GraphQL */ `
  mutation DeleteFinished {
    deleteFinishedRepairEntries { index }
  }
`;

export const DeleteUnfinished = /* GraphQL */ `
  mutation DeleteUnfinished {
    deleteUnfinishedRepairEntries { index }
  }
`;

export const QueueEnabled = /* GraphQL */ `
  query QueueEnabled {
    repairQueueEnabled
  }
`;

export const SetQueueEnabled = /* GraphQL */ `
  mutation SetQueueEnabled($enabled: Boolean!) {
    setRepairQueueEnabled(enabled: $enabled)
  }
`;

export const ResetBackoff = /* GraphQL */ `
  mutation ResetBackoff {
    resetRepairBackoff { index }
  }
`;

export const CountEntries = /* GraphQL */ `
  query CountEntries {
    searchRepairEntries { index }
  }
`;

export const AutoRepairEnabled = /* GraphQL */ `
  query AutoRepairEnabled {
    autoRepairEnabled
  }
`;

export const SetAutoRepairEnabled = /* GraphQL */ `
  mutation SetAutoRepairEnabled($enabled: Boolean!) {
    setAutoRepairEnabled(enabled: $enabled)
  }
`;

export const GetAutoRepairVariables = /* GraphQL */ `
  query GetAutoRepairVariables {
    autoRepairVariables { text }
  }
`;

export const SetAutoRepairVariables = /* GraphQL */ `
  mutation SetAutoRepairVariables($text: String!) {
    setAutoRepairVariables(text: $text) { text }
  }
`;

const CONSTRAINTS_FIELDS = /* GraphQL */ `
  fragment ConstraintsFields on Constraints {
    controlPlaneCount minimumWorkersRate maximumUnreachableNodesForReboot maximumRepairQueueEntries
    waitSecondsToRepairRebooting maximumUnhealthyMachinesPerRack minimumWorkers maximumWorkers waitSecondsToReplaceControlPlane
  }
`;

export const ShowConstraints = /* GraphQL */ `
  query ShowConstraints {
    constraints { ...ConstraintsFields }
  }
  ${CONSTRAINTS_FIELDS}
`;

export const SetConstraint = /* GraphQL */ `
  mutation SetConstraint($name: String!, $value: Int!) {
    setConstraint(name: $name, value: $value) { ...ConstraintsFields }
  }
  ${CONSTRAINTS_FIELDS}
`;

const OUTCOME_FIELDS = /* GraphQL */ `
  fragment OutcomeFields on AutoRepairOutcome {
    sequence time trigger machinesSeen
    enqueued { index address machineType operation serial }
    skipped { serial address state reason }
    skippedTotal skippedByKind { kind machines }
    shortCircuit { existingEntries candidates limit }
    error
  }
`;

export const RunAutoRepair = /* GraphQL */ `
  mutation RunAutoRepair {
    runAutoRepair { ...OutcomeFields }
  }
  ${OUTCOME_FIELDS}
`;

export const AutoRepairOutcomes = /* GraphQL */ `
  query AutoRepairOutcomes($last: Int) {
    autoRepairOutcomes(last: $last) { ...OutcomeFields }
  }
  ${OUTCOME_FIELDS}
`;

const HEALTH_CHECK_FIELDS = /* GraphQL */ `
  fragment HealthCheckFields on HealthCheck {
    name paused operation expectedNodes currentHealthy unhealthyCount remediationsAllowed gateOpen gateReason
    maxUnhealthy unhealthyRange nextCheckAt evaluatedAt error
    targets { node address state rule { type status timeoutSeconds } since nextCheckAt }
    held { node reason }
  }
`;

export const ListHealthChecks = /* GraphQL */ `
  query ListHealthChecks {
    healthChecks { ...HealthCheckFields }
  }
  ${HEALTH_CHECK_FIELDS}
`;

export const SetHealthCheckPaused = /* GraphQL */ `
  mutation SetHealthCheckPaused($name: String!, $paused: Boolean!) {
    setHealthCheckPaused(name: $name, paused: $paused) { ...HealthCheckFields }
  }
  ${HEALTH_CHECK_FIELDS}
`;

export const SetClusterTemplate = /* GraphQL */ `
  mutation SetClusterTemplate($template: String!) {
    setClusterTemplate(template: $template) { name setAt }
  }
`;

export const GetClusterTemplate = /* GraphQL */ `
  query GetClusterTemplate {
    clusterTemplate { template }
  }
`;

export const SetClusterVariables = /* GraphQL */ `
  mutation SetClusterVariables($text: String!) {
    setClusterVariables(text: $text) { text }
  }
`;

export const GetClusterVariables = /* GraphQL */ `
  query GetClusterVariables {
    clusterVariables { text }
  }
`;

export const ClusterGenerationEnabled = /* GraphQL */ `
  query ClusterGenerationEnabled {
    clusterGenerationEnabled
  }
`;

export const SetClusterGenerationEnabled = /* GraphQL */ `
  mutation SetClusterGenerationEnabled($enabled: Boolean!) {
    setClusterGenerationEnabled(enabled: $enabled)
  }
`;

export const GetGeneratedCluster = /* GraphQL */ `
  query GetGeneratedCluster($generation: Int) {
    generatedCluster(generation: $generation) { generation yaml }
  }
`;

const GENERATION_FIELDS = /* GraphQL */ `
  fragment GenerationFields on ClusterGeneration {
    sequence outcome generation time lastTime repeats trigger policy changes error
  }
`;

export const RunClusterGeneration = /* GraphQL */ `
  mutation RunClusterGeneration {
    runClusterGeneration { outcome record { ...GenerationFields } cluster { generation } }
  }
  ${GENERATION_FIELDS}
`;

export const AdoptCluster = /* GraphQL */ `
  mutation AdoptCluster($cluster: String!) {
    adoptCluster(cluster: $cluster) {
      cluster { generation }
      suggestedWorkerSelection
      suggestion
      nextRounds { workerSelection outcome details }
    }
  }
`;

export const ClusterGenerations = /* GraphQL */ `
  query ClusterGenerations($last: Int) {
    clusterGenerations(last: $last) { ...GenerationFields }
  }
  ${GENERATION_FIELDS}
`;

const MACHINE_HOLD_FIELDS = /* GraphQL */ `
  fragment MachineHoldFields on MachineHold {
    address reason setBy setAt until source
  }
`;

export const ListMachineHolds = /* GraphQL */ `
  query ListMachineHolds {
    machineHolds { ...MachineHoldFields }
  }
  ${MACHINE_HOLD_FIELDS}
`;

export const HoldMachine = /* GraphQL */ `
  mutation HoldMachine($address: IPAddress!, $reason: String!, $until: DateTime) {
    holdMachine(address: $address, reason: $reason, until: $until) { ...MachineHoldFields }
  }
  ${MACHINE_HOLD_FIELDS}
`;

export const MachineAddressBySerial = /* GraphQL */ `
  query MachineAddressBySerial($serial: ID!) {
    machine(serial: $serial) { spec { ipv4 } }
  }
`;

export const ReleaseMachine = /* GraphQL */ `
  mutation ReleaseMachine($address: IPAddress!) {
    releaseMachine(address: $address) { ...MachineHoldFields }
  }
  ${MACHINE_HOLD_FIELDS}
`;

// What `repair-queue watch` reads once, then keeps up to date from the events and the waits.
const WATCH_FIELDS = /* GraphQL */ `
  fragment WatchFields on RepairEntry {
    index address nodename operation status step stepCount stepStatus deleted drainBackoffCount drainBackoffExpire
    lastTransitionTime waitingFor { kind message } history { reason }
  }
`;

export const WatchEntries = /* GraphQL */ `
  query WatchEntries {
    searchRepairEntries { ...WatchFields }
  }
  ${WATCH_FIELDS}
`;

export const WatchEntry = /* GraphQL */ `
  query WatchEntry($index: ID!) {
    repairEntry(index: $index) { ...WatchFields }
  }
  ${WATCH_FIELDS}
`;

/** What `repair-queue watch` shows of each wait (the whole list each time the leader publishes a change). */
export const WatchWaits = /* GraphQL */ `
  subscription WatchWaits {
    repairWaits { index waitingFor { kind message } }
  }
`;

export const SimulateAutoRepair = /* GraphQL */ `
  query SimulateAutoRepair($since: DateTime!, $constraints: ReplayConstraintsInput, $repairSeconds: Int, $healthChecks: [ReplayHealthCheckInput!], $pacing: ReplayPacingInput) {
    simulateAutoRepair(since: $since, constraints: $constraints, repairSeconds: $repairSeconds, healthChecks: $healthChecks, pacing: $pacing) {
      pollsReplayed remediationsReplayed unconfiguredChecks unreadableRecords truncated enqueuedLive enqueuedSimulated
      polls {
        time source healthCheck
        live { enqueued shortCircuited queueSize }
        simulated { enqueued shortCircuited queueSize }
        differences { serial address live simulated }
        targets { node address live simulated }
      }
    }
  }
`;
export const RepairStats = /* GraphQL */ `
  query RepairStats($since: DateTime!, $until: DateTime, $groupBy: [RepairStatsDimension!]) {
    repairStats(since: $since, until: $until, groupBy: $groupBy) {
      machineType operation rack step entries succeeded failed deleted successRate
      timeToRepair { p50Seconds p90Seconds maxSeconds } drainingSeconds stepsNeededP50 stepsNeededMax withHistory
    }
  }
`;

export const MachineRepairs = /* GraphQL */ `
  query MachineRepairs($address: IPAddress, $serial: String) {
    machineRepairs(address: $address, serial: $serial) {
      repairs { index address machineType operation status createdAt finishedAt secondsSincePrevious }
      meanSecondsBetweenFailures
    }
  }
`;

export const FrequentlyRepaired = /* GraphQL */ `
  query FrequentlyRepaired($since: DateTime!, $top: Int) {
    frequentlyRepaired(since: $since, top: $top) { address machineType repairs succeeded failed lastFinishedAt }
  }
`;
