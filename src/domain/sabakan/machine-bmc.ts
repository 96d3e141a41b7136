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
