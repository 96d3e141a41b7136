import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";

/** An UNHEALTHY machine for the intake's tests, an hour in that state; `s12` has address 10.0.0.12. */
export const machine = (serial: string, over: Partial<SabakanMachine> = {}): SabakanMachine => ({
  serial,
  rack: 0,
  role: "cs",
  ipv4: [`10.0.0.${serial.replace(/\D/g, "") || "1"}`],
  bmcType: "IPMI-2.0",
  state: "UNHEALTHY",
  durationSeconds: 3600,
  stateSince: 0,
  indexInRack: 1,
  registerDate: 0,
  retireDate: 0,
  labels: {},
  ...over,
});
