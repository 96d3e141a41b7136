import { isIPv4 } from "node:net";

/** A machine's BMC as sabakan describes it (`spec.bmc`), once validated: what a BMC command needs to reach it. */
export interface MachineBmc {
  /** An IPv4 literal (sabakan's `spec.bmc.ipv4`), dotted decimal without leading zeros. */
  readonly address: string;
  /** sabakan's `spec.bmc.bmcType` (e.g. IPMI-2.0, iDRAC-9), or "" when sabakan's value was not a plain type name. */
  readonly type: string;
}

/** The longest BMC type kept; sabakan's own types are a dozen characters. */
export const MAX_BMC_TYPE_LENGTH = 64;

// sabakan's own rule for a BMC type (machines.go, reValidBmcType): nothing a shell or a log could misread.
const BMC_TYPE = /^[a-zA-Z0-9_/.-]+$/u;

/**
 * The BMC of a machine from sabakan's untrusted `spec.bmc` fields, or null when its address is not an IPv4 literal
 * (absent, a hostname, an option such as `-oProxyCommand`, a CIDR, with spaces or control characters): a command is
 * never handed an address it could take for anything else. A type that breaks sabakan's rule is kept as "".
 */
export function machineBmcOf(ipv4: unknown, bmcType: unknown): MachineBmc | null {
  if (typeof ipv4 !== "string" || !isIPv4(ipv4)) return null;
  const type = typeof bmcType === "string" && bmcType.length <= MAX_BMC_TYPE_LENGTH && BMC_TYPE.test(bmcType) ? bmcType : "";
  return { address: ipv4, type };
}

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
