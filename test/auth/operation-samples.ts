import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isAbstractType,
  type GraphQLInputType,
  type GraphQLSchema,
} from "graphql";

/** A literal for a required argument of `type`: the smallest value that parses (resolvers may still refuse it). */
function literal(type: GraphQLInputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return "[]";
  if (isEnumType(inner)) return inner.getValues()[0]?.name ?? "";
  if (isInputObjectType(inner)) {
    const required = Object.values(inner.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return `{ ${required.map((f) => `${f.name}: ${literal(f.type)}`).join(", ")} }`;
  }
  const scalars: Record<string, string> = {
    String: '"access-test"',
    ID: '"999999"',
    Int: "0",
    Float: "0",
    Boolean: "false",
    IPAddress: '"10.254.0.1"',
    DateTime: '"2026-01-01T00:00:00Z"',
  };
  const value = scalars[inner.name];
  if (value === undefined) throw new Error(`no sample literal for scalar ${inner.name}: add one`);
  return value;
}

/** One operation per root field of the schema, made from the schema itself, so a new root field is covered too. */
export function rootFieldOperations(schema: GraphQLSchema): Array<{ type: "Query" | "Mutation" | "Subscription"; field: string; document: string }> {
  const roots = [
    ["Query", "query", schema.getQueryType()],
    ["Mutation", "mutation", schema.getMutationType()],
    ["Subscription", "subscription", schema.getSubscriptionType()],
  ] as const;
  return roots.flatMap(([type, keyword, root]) =>
    Object.values(root?.getFields() ?? {}).map((field) => {
      const args = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
      const argText = args.length > 0 ? `(${args.map((a) => `${a.name}: ${literal(a.type)}`).join(", ")})` : "";
      const named = getNamedType(field.type);
      const selection = isObjectType(named) || isAbstractType(named) ? " { __typename }" : "";
      return { type, field: field.name, document: `${keyword} { ${field.name}${argText}${selection} }` };
    }),
  );
}
