/** An object of sabakan's answer, passed through as sabakan sent it (graphql-js picks the selected fields). */
export type SabakanObject = Record<string, unknown>;

/** A state change made through kintsugi's setMachineState, as published to subscribers. */
export interface MachineStateChange {
  readonly serial: string;
  readonly state: string;
  /** sabakan's MachineStatus after the change, with state, timestamp and duration. */
  readonly status: SabakanObject;
  readonly time: number;
}
