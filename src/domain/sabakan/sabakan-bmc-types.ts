/**
 * The BMC types sabakan documents for a machine's `bmc.type` (sabakan docs/machine.md: "iDRAC-9", "IPMI-2.0"; its
 * tests and sabactl's help use the same spellings). sabakan accepts any type matching `^[a-z0-9A-Z-_/.]+$`
 * (machines.go, IsValidBmcType), so these are the known ones, not the only ones.
 */
export const SABAKAN_BMC_TYPES = ["IPMI-2.0", "iDRAC-9"] as const;

/**
 * The known sabakan BMC type that `machineType` spells with other letter case (`"ipmi-2.0"` gives `"IPMI-2.0"`), or
 * null when it is one exactly or resembles none. CKE and kintsugi match `machine_types` against `bmc.type` exactly,
 * so such a value matches no machine of that type: worth a warning. A custom type stays allowed.
 */
export function bmcTypeDifferingInCase(machineType: string): string | null {
  const lower = machineType.toLowerCase();
  return SABAKAN_BMC_TYPES.find((known) => known !== machineType && known.toLowerCase() === lower) ?? null;
}
