/** A column of the watch table: its title, and whether a narrow terminal may leave it out (and in which order). */
export interface TableColumn {
  readonly title: string;
  /** Left out first when the terminal is narrow: lower drops earlier; undefined = always shown. */
  readonly dropOrder?: number;
}

/** Below this, a last column of reasons is unreadable: they go on lines of their own under their rows. */
const MIN_REASON_WIDTH = 40;
const GAP = "  ";
/** How far a reason line is indented under its row. */
const REASON_INDENT = "    ";

/** `text` cut to `width` columns, with "…" where it was cut. Counts code points, so no character is split. */
export function fit(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 0 ? "" : `${chars.slice(0, width - 1).join("")}…`;
}

const length = (text: string) => [...text].length;

function line(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((cell, c) => cell + " ".repeat(Math.max(0, (widths[c] ?? 0) - length(cell))))
    .join(GAP)
    .trimEnd();
}

function widthsOf(rows: ReadonlyArray<readonly string[]>, columns: readonly number[]): number[] {
  return columns.map((c) => Math.max(...rows.map((r) => length(r[c] ?? ""))));
}

const lineWidth = (widths: readonly number[]) => widths.reduce((sum, w) => sum + w, 0) + GAP.length * Math.max(0, widths.length - 1);

/**
 * Lays out a table whose last cell of every row is a reason (free text) so that it fits `width` columns and the
 * reason stays visible: all columns when they fit; else the droppable columns left out (in their order) until the
 * reason column gets at least {@link MIN_REASON_WIDTH} columns, its text cut with "…"; else, on a narrow terminal,
 * each reason on an indented line of its own under its row. `rows` excludes the header; every returned line fits.
 * `notes` (one per row, "" for none) go on an indented line of their own under their row, cut to `width`, in either
 * layout; they take no part in the column widths.
 */
export function layoutTable(
  columns: readonly TableColumn[],
  reasonTitle: string,
  rows: ReadonlyArray<readonly string[]>,
  width: number,
  notes: readonly string[] = [],
): string[] {
  const header = [...columns.map((c) => c.title), reasonTitle];
  const all = [header, ...rows];
  const reasonAt = columns.length;
  const naturalReason = Math.max(...all.map((r) => length(r[reasonAt] ?? "")));
  const droppable = columns
    .map((c, i) => ({ i, order: c.dropOrder }))
    .filter((c) => c.order !== undefined)
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  const shown = columns.map((_, i) => i);
  for (let dropped = 0; dropped <= droppable.length; dropped++) {
    if (dropped > 0) shown.splice(shown.indexOf(droppable[dropped - 1]?.i ?? -1), 1);
    const widths = widthsOf(all, shown);
    const room = width - lineWidth(widths) - GAP.length;
    if (room >= Math.min(naturalReason, MIN_REASON_WIDTH)) {
      const reasonWidth = Math.min(room, naturalReason);
      return all.flatMap((r, i) => [
        line([...shown.map((c) => r[c] ?? ""), fit(r[reasonAt] ?? "", reasonWidth)], [...widths, reasonWidth]),
        ...noteLines(notes[i - 1], width),
      ]);
    }
  }
  // Stacked: the columns that fit (dropping in order), each row's reason under it.
  const kept = columns.map((_, i) => i);
  for (const { i } of droppable) {
    if (lineWidth(widthsOf(all, kept)) <= width) break;
    kept.splice(kept.indexOf(i), 1);
  }
  const widths = widthsOf(all, kept);
  const out = [
    fit(
      line(
        kept.map((c) => header[c] ?? ""),
        widths,
      ),
      width,
    ),
  ];
  rows.forEach((r, i) => {
    out.push(
      fit(
        line(
          kept.map((c) => r[c] ?? ""),
          widths,
        ),
        width,
      ),
    );
    const reason = r[reasonAt] ?? "";
    if (reason !== "") out.push(fit(`${REASON_INDENT}${reason}`, width));
    out.push(...noteLines(notes[i], width));
  });
  return out;
}

/** A row's note as its indented line, or none. */
function noteLines(note: string | undefined, width: number): string[] {
  return note === undefined || note === "" ? [] : [fit(`${REASON_INDENT}${note}`, width)];
}
