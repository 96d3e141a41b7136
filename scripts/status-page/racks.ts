// The data center as a grid on one canvas: a column of cells per rack, racks wrapped into rows to fit the width. At
// 350 racks of 30 machines the cells shrink to 5 px, which still shows every machine on a laptop screen; hovering a
// cell says what it is. A data center of at most DETAIL_LIMIT machines is drawn machine by machine (by indexInRack,
// each ringed by its own repair or hold); a larger one from its counts by rack and state (each rack's machines by
// state, the unhealthy first, as many ringed as the rack has machines in the queue and held).
import { REPAIR_COLOURS } from "./colours.js";
import { visible } from "./dom.js";
import type { Cell, Column } from "./rack-columns.js";

interface Layout {
  readonly cell: number;
  readonly gap: number;
  readonly rackGap: number;
  readonly racksPerRow: number;
  readonly rowHeight: number;
  readonly labelHeight: number;
}

export interface RackGrid {
  /** `machines`: how many the columns hold; `rackLimit`: `maximum-unhealthy-machines-per-rack` (0 = none), null when unknown. */
  draw(columns: readonly Column[], machines: number, rackLimit?: number | null): void;
}

/**
 * A rack's header when cells are large: its number, then its unhealthy machines against the rack limit (amber at
 * the limit, red over it: the poll enqueues none of the rack). Held machines draw a bar over the rack; a rack whose
 * machines are all held gets a frame. Returns the header as text for the canvas's data attribute.
 */
function drawRackHeader(
  ctx: CanvasRenderingContext2D,
  at: { x: number; y: number; labelHeight: number; cell: number; height: number },
  column: Column,
  limit: number | null,
): string {
  const { rack, down, held } = column;
  const all = column.cells.length;
  ctx.fillStyle = "#9aa0a6";
  ctx.fillText(String(rack), at.x, at.y + 9);
  const counted = limit !== null && limit > 0 ? `${down}/${limit}` : down > 0 ? `${down}↓` : "";
  if (counted !== "") {
    ctx.fillStyle = limit !== null && limit > 0 && down > limit ? "#ff6b6b" : limit !== null && limit > 0 && down === limit ? "#f2d024" : "#9aa0a6";
    ctx.fillText(counted, at.x, at.y + 21);
  }
  if (held > 0) {
    ctx.fillStyle = REPAIR_COLOURS.HELD!;
    ctx.fillRect(at.x, at.y + at.labelHeight - 3, at.cell, 2);
    if (held === all) {
      ctx.strokeStyle = REPAIR_COLOURS.HELD!;
      ctx.lineWidth = 1;
      ctx.strokeRect(at.x - 2.5, at.y + at.labelHeight - 4.5, at.cell + 5, at.height + 6);
    }
  }
  return `${rack}:${counted}${held > 0 ? ` held ${held}${held === all ? " (all)" : ""}` : ""}`;
}

/** Where every cell goes, and what the cell under the pointer is. */
export function rackGrid(canvas: HTMLCanvasElement, summary: HTMLElement, tooltip: HTMLElement): RackGrid {
  let placed: Array<{ x: number; y: number; cell: Cell }> = [];
  let layout: Layout | null = null;

  canvas.addEventListener("mousemove", (event) => {
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const hit = layout && placed.find((p) => x >= p.x && x < p.x + layout!.cell && y >= p.y && y < p.y + layout!.cell);
    if (!hit) {
      tooltip.hidden = true;
      return;
    }
    tooltip.textContent = visible(hit.cell.tip);
    tooltip.hidden = false;
  });
  canvas.addEventListener("mouseleave", () => (tooltip.hidden = true));

  return {
    draw(columns, machines, rackLimit = null) {
      const tallest = Math.max(1, ...columns.map((c) => c.cells.length));
      const width = Math.max(320, canvas.parentElement?.clientWidth ?? 1200);
      layout = layoutFor(columns.length, tallest, width);
      const rows = Math.max(1, Math.ceil(columns.length / layout.racksPerRow));
      const ratio = window.devicePixelRatio || 1;
      const height = rows * layout.rowHeight;
      canvas.width = Math.floor(width * ratio);
      canvas.height = Math.floor(height * ratio);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
      const ctx = canvas.getContext("2d");
      if (!ctx) return;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = "10px system-ui, sans-serif";
      ctx.fillStyle = "#9aa0a6";
      placed = [];
      const pitch = layout.cell + layout.gap;
      const headers: string[] = [];
      columns.forEach((column, i) => {
        const x0 = (i % layout!.racksPerRow) * (pitch + layout!.rackGap);
        const y0 = Math.floor(i / layout!.racksPerRow) * layout!.rowHeight;
        if (layout!.labelHeight >= 24) {
          headers.push(
            drawRackHeader(ctx, { x: x0, y: y0, labelHeight: layout!.labelHeight, cell: layout!.cell, height: column.cells.length * pitch }, column, rackLimit),
          );
        } else if (layout!.labelHeight > 0) {
          ctx.fillStyle = "#9aa0a6";
          ctx.fillText(String(column.rack), x0, y0 + 9);
        }
        column.cells.forEach((cell, j) => {
          const x = x0;
          const y = y0 + layout!.labelHeight + j * pitch;
          ctx.fillStyle = cell.fill;
          ctx.fillRect(x, y, layout!.cell, layout!.cell);
          if (cell.ring) {
            ctx.strokeStyle = cell.ring;
            const line = layout!.cell >= 22 ? 3 : layout!.cell >= 10 ? 2 : 1;
            ctx.lineWidth = line;
            ctx.strokeRect(x + line / 2, y + line / 2, layout!.cell - line, layout!.cell - line);
          }
          placed.push({ x, y, cell });
        });
      });
      canvas.dataset.machines = String(machines);
      canvas.dataset.racks = String(columns.length);
      canvas.dataset.rackHeaders = headers.join(", ");
      summary.textContent = `${machines} machines in ${columns.length} racks`;
    },
  };
}

/**
 * The biggest cells whose rows fit 640 px: 28 px ones (readable at a glance on a laptop) for small data centers,
 * 5 px ones (with no rack labels) for the largest.
 */
function layoutFor(racks: number, tallest: number, width: number): Layout {
  for (const cell of [28, 22, 16, 12, 9, 7, 5, 4, 3]) {
    const gap = cell >= 9 ? 2 : 1;
    const rackGap = cell >= 22 ? 14 : cell >= 9 ? 8 : 2;
    // Large cells get a two-line header: the rack's number, then its unhealthy machines against the rack limit.
    const labelHeight = cell >= 22 ? 26 : cell >= 9 ? 12 : 0;
    const racksPerRow = Math.max(1, Math.floor((width + rackGap) / (cell + gap + rackGap)));
    const rowHeight = labelHeight + tallest * (cell + gap) + (cell >= 9 ? 10 : 4);
    const rows = Math.ceil(racks / racksPerRow);
    if (rows * rowHeight <= 640 || cell === 3) return { cell, gap, rackGap, racksPerRow, rowHeight, labelHeight };
  }
  throw new Error("unreachable: the smallest layout is always taken");
}
