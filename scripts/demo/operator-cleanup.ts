import type { Teller } from "./story.js";

type Gql = (query: string, variables?: Record<string, unknown>) => Promise<unknown>;

/**
 * The operator's routine: the entries of repairs that succeeded are deleted, so that their machines may be repaired
 * again (kintsugi leaves a machine with an entry in the queue alone, as recently repaired). A failed entry is left to
 * the operator who reads why it failed first (see FailedRepairs): deleted unread, its machine would only be repaired,
 * and fail, again.
 */
export async function deleteSucceededEntries(gql: Gql, tell: (teller: Teller, text: string) => void): Promise<void> {
  const data = (await gql("{ searchRepairEntries(having: { statuses: [SUCCEEDED] }) { index serial address deleted } }")) as {
    searchRepairEntries: Array<{ index: string; serial: string | null; address: string; deleted: boolean }>;
  };
  const done = data.searchRepairEntries.filter((e) => !e.deleted);
  if (done.length === 0) return;
  await Promise.all(done.map((e) => gql("mutation ($i: ID!) { deleteRepairEntry(index: $i) { index } }", { i: e.index })));
  const which = done.map((e) => `#${e.index} ${e.serial ?? e.address}`).join(", ");
  tell("operator", `deleted ${done.length} succeeded entr${done.length === 1 ? "y" : "ies"} (${which}): their machines may be repaired again`);
}
