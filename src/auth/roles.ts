/** The roles a client can have, weakest first: each may do everything the ones before it may. */
export const ROLES = ["viewer", "operator", "admin"] as const;

export type Role = (typeof ROLES)[number];

/** Who made a request: a token's name and role, or `anonymous` with the role `auth.anonymous` grants. */
export interface Actor {
  readonly name: string;
  readonly role: Role;
  /** How the actor was recognised: a client certificate's CN, or (absent) a token or no credentials. */
  readonly via?: "certificate";
}

/** The name of the actor of a request that carried no token. */
export const ANONYMOUS = "anonymous";

/** Whether `role` includes `needed` (admin ⊃ operator ⊃ viewer). */
export function roleIncludes(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** Whether `text` is one of the role names. */
export function isRole(text: unknown): text is Role {
  return typeof text === "string" && (ROLES as readonly string[]).includes(text);
}
