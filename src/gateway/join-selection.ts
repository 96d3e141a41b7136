import { Kind, TypeInfo, visit, visitWithTypeInfo, isObjectType, type DocumentNode, type GraphQLResolveInfo } from "graphql";
import { LOCAL_FIELDS } from "./sabakan-forwarder.js";
import { mergeSelection, requireField, type SelectionTree } from "./selection-tree.js";

/**
 * What sabakan must send for every `RepairEntry.machine` of an operation, however deeply the joins nest
 * (`searchRepairEntries { machine { repairEntries { machine { ... } } } }`): the union of the selections under each
 * occurrence (fragments included, `@skip`/`@include` applied where written on the selections themselves), plus
 * the first IPv4 the answers are matched by. One search with this selection answers every level, so a request costs
 * sabakan one query for its joins instead of one per level. Asking for a field that one level would skip is harmless:
 * graphql-js picks what each level selected.
 */
export function joinSelection(info: GraphQLResolveInfo): SelectionTree {
  const tree: SelectionTree = new Map();
  const machineType = info.schema.getType("Machine");
  if (!isObjectType(machineType)) throw new Error("the schema has no Machine type");
  const typeInfo = new TypeInfo(info.schema);
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [info.operation, ...Object.values(info.fragments)] };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (node.name.value === "machine" && typeInfo.getParentType()?.name === "RepairEntry") {
          mergeSelection(tree, machineType, node.selectionSet, info, LOCAL_FIELDS);
        }
      },
    }),
  );
  requireField(tree, ["spec", "ipv4"]);
  return tree;
}
