import {
  GraphQLError,
  getOperationAST,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { FIELD_ROLES } from "./field-roles.js";
import { ANONYMOUS, roleIncludes, type Actor, type Role } from "./roles.js";

type RootType = keyof typeof FIELD_ROLES;

const ROOT_TYPES: Readonly<Record<string, RootType>> = { query: "Query", mutation: "Mutation", subscription: "Subscription" };

/** The root fields an operation selects, through fragments and inline fragments, each once, in order. */
export function rootFieldsOf(document: DocumentNode, operationName?: string | null): { type: RootType; fields: string[] } | null {
  const operation = getOperationAST(document, operationName);
  if (!operation) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const fields = new Set<string>();
  const seenFragments = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!seenFragments.has(selection.name.value)) {
        seenFragments.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return { type: ROOT_TYPES[operation.operation] as RootType, fields: [...fields] };
}

/** The role a root field needs: the table's; introspection is for viewers; a field the table lacks, admins only. */
export function roleOfField(type: RootType, field: string): Role {
  if (field.startsWith("__")) return "viewer";
  // Own keys only: a field named like an Object.prototype member ("constructor", "toString") has no role either.
  return Object.hasOwn(FIELD_ROLES[type], field) ? (FIELD_ROLES[type][field] as Role) : "admin";
}

/**
 * The FORBIDDEN error for the first root field of the operation that `actor`'s role does not include, or null
 * when the actor may run the whole operation. Nothing of a refused operation runs.
 */
export function forbiddenFieldError(actor: Actor, document: DocumentNode, operationName?: string | null): GraphQLError | null {
  const selected = rootFieldsOf(document, operationName);
  if (!selected) return null;
  for (const field of selected.fields) {
    const needed = roleOfField(selected.type, field);
    if (!roleIncludes(actor.role, needed)) {
      const who =
        actor.via === "certificate"
          ? `client certificate ${JSON.stringify(actor.name)}`
          : actor.name === ANONYMOUS
            ? "an anonymous client"
            : `token ${JSON.stringify(actor.name)}`;
      return new GraphQLError(`${selected.type}.${field} needs the ${needed} role; ${who} has the ${actor.role} role`, {
        extensions: { type: "FORBIDDEN", code: "FORBIDDEN", requiredRole: needed },
      });
    }
  }
  return null;
}

/** Throws, naming them, when a root field of `schema` has no role in the table or the table names a field it lacks. */
export function assertRoleTableMatches(schema: GraphQLSchema): void {
  const { missing, stale } = roleTableMismatches(schema);
  if (missing.length > 0 || stale.length > 0) {
    throw new Error(
      `src/auth/field-roles.ts does not match the schema: without a role: ${missing.join(", ") || "none"}; not in the schema: ${stale.join(", ") || "none"}`,
    );
  }
}

/** Root fields of `schema` the role table does not name, and names in the table the schema lacks, as `Type.field`. */
export function roleTableMismatches(schema: GraphQLSchema): { missing: string[]; stale: string[] } {
  const roots: Record<RootType, GraphQLObjectType | null | undefined> = {
    Query: schema.getQueryType(),
    Mutation: schema.getMutationType(),
    Subscription: schema.getSubscriptionType(),
  };
  const missing: string[] = [];
  const stale: string[] = [];
  for (const type of Object.keys(FIELD_ROLES) as RootType[]) {
    const fields = Object.keys(roots[type]?.getFields() ?? {});
    const roles = FIELD_ROLES[type];
    for (const field of fields) if (!Object.hasOwn(roles, field)) missing.push(`${type}.${field}`);
    for (const field of Object.keys(roles)) if (!fields.includes(field)) stale.push(`${type}.${field}`);
  }
  return { missing, stale };
}
