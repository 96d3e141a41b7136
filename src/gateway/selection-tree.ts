import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  getNamedType,
  isObjectType,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type SelectionSetNode,
} from "graphql";

/** A selection as sabakan will receive it: field names (no aliases, no arguments below the root) to sub-selections. */
export type SelectionTree = Map<string, SelectionTree>;

/** The parts of a resolve info the tree builder needs. */
export interface SelectionSource {
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly variableValues: Readonly<Record<string, unknown>>;
}

/**
 * Merges `selectionSet` (as written under a field of type `type`) into `tree`: fragments are inlined, `@skip` and
 * `@include` applied, aliases dropped (graphql-js applies them again when it resolves the answer locally, which is
 * safe because sabakan's object fields take no arguments), and fields that are kintsugi's own (`localFields`, keyed
 * `Type.field`) left out, with the sabakan fields each of them needs added in their place.
 */
export function mergeSelection(
  tree: SelectionTree,
  type: GraphQLObjectType,
  selectionSet: SelectionSetNode | undefined,
  source: SelectionSource,
  localFields: ReadonlyMap<string, ReadonlyArray<readonly string[]>>,
): void {
  for (const selection of selectionSet?.selections ?? []) {
    if (!included(selection, source)) continue;
    if (selection.kind === "FragmentSpread") {
      const fragment = source.fragments[selection.name.value];
      if (fragment) mergeSelection(tree, type, fragment.selectionSet, source, localFields);
      continue;
    }
    if (selection.kind === "InlineFragment") {
      mergeSelection(tree, type, selection.selectionSet, source, localFields);
      continue;
    }
    const name = selection.name.value;
    const needs = localFields.get(`${type.name}.${name}`);
    if (needs) {
      for (const path of needs) requireField(tree, path);
      continue;
    }
    const child = tree.get(name) ?? new Map();
    tree.set(name, child);
    const fieldType = name === "__typename" ? undefined : getNamedType(type.getFields()[name]?.type);
    if (fieldType && isObjectType(fieldType)) mergeSelection(child, fieldType, selection.selectionSet, source, localFields);
  }
}

/** Adds a path of fields (e.g. ["spec", "ipv4"]) that kintsugi itself needs from the answer. */
export function requireField(tree: SelectionTree, path: readonly string[]): void {
  let node = tree;
  for (const name of path) {
    const child = node.get(name) ?? new Map();
    node.set(name, child);
    node = child;
  }
}

/** Prints a tree as a selection set: `{ spec { serial } status { state } }`. */
export function printTree(tree: SelectionTree): string {
  const fields = [...tree.entries()].map(([name, child]) => (child.size === 0 ? name : `${name} ${printTree(child)}`));
  return `{ ${fields.join(" ")} }`;
}

function included(selection: Parameters<typeof getDirectiveValues>[1], source: SelectionSource): boolean {
  const variables = source.variableValues as Record<string, unknown>;
  if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.["if"] === true) return false;
  if (getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.["if"] === false) return false;
  return true;
}

/** Adds every field of `from` to `into`. */
export function mergeTrees(into: SelectionTree, from: SelectionTree): void {
  for (const [name, child] of from) {
    const mine = into.get(name) ?? new Map();
    into.set(name, mine);
    mergeTrees(mine, child);
  }
}

/** Whether `tree` asks for every field `wanted` asks for (so its answer serves `wanted` too). */
export function coversTree(tree: SelectionTree, wanted: SelectionTree): boolean {
  for (const [name, child] of wanted) {
    const mine = tree.get(name);
    if (!mine || !coversTree(mine, child)) return false;
  }
  return true;
}
