// The block pool of a failing paging case (judge/pictures/pool_art.py builds the data): a grid of
// blocks, expected beside got, after the step that differs, with buttons to step back
// through the steps the report carries. Who holds a block, its references, its cache mark
// and its place in the free queue are written in each cell, so nothing is colour alone;
// a differing cell also gets a dashed outline and a "!".
import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { s, sayIn, svgImage } from "./svg.js";

const LABELS = {
  en: {
    title: "Block pool",
    expected: "Expected",
    got: "Got",
    agrees: "Got (agrees)",
    step: "After step {step}: {op}",
    back: "◀ Step back",
    forward: "Step forward ▶",
    differs: "{count} blocks differ (marked “!” with a dashed outline)",
    same: "The pools agree after this step",
    free: "free queue: {queue}",
    empty: "(empty)",
    legend: "sN: held by sequence N · xK: K references · c: cached · f@I: I-th in the free queue",
    svgTitle: "{side} block pool after step {step}",
    svgDesc: "{count} blocks. {cells}. Free queue, head first: {queue}.",
    cell: "block {id}: {text}",
    marked: " (differs)",
  },
  zh: {
    title: "块池",
    expected: "期望",
    got: "实际",
    agrees: "实际（一致）",
    step: "第 {step} 步之后：{op}",
    back: "◀ 上一步",
    forward: "下一步 ▶",
    differs: "{count} 个块不同（标“!”并用虚线框出）",
    same: "这一步之后两边的块池一致",
    free: "空闲队列：{queue}",
    empty: "（空）",
    legend: "sN：序列 N 持有 · xK：引用计数 K · c：已缓存 · f@I：空闲队列中第 I 个",
    svgTitle: "第 {step} 步之后的{side}块池",
    svgDesc: "共 {count} 个块。{cells}。空闲队列（队首在前）：{queue}。",
    cell: "块 {id}：{text}",
    marked: "（不同）",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);

const CELL = { w: 64, h: 40, gap: 6, columns: 8 };

// The cell's text, as `judge run` writes it (judge/pictures/pool_art.py, Block.label).
export function cellText(block) {
  const parts = [];
  const owners = block.owners || [];
  if (owners.length) parts.push(`s${owners.join("+")}`);
  if (typeof block.ref === "number" && block.ref !== owners.length) parts.push(`x${block.ref}`);
  if (typeof block.free_at === "number") parts.push(`f@${block.free_at}`);
  if (block.cached) parts.push("c");
  return parts.join(" ") || "-";
}

// What a block is, for its fill: held by one sequence, shared, free, or neither.
export function cellKind(block) {
  const owners = (block.owners || []).length;
  if (owners > 1 || (typeof block.ref === "number" && block.ref > 1)) return "shared";
  if (owners === 1) return "owned";
  if (typeof block.free_at === "number") return block.cached ? "cached" : "free";
  return "other";
}

// Where each cell goes, and whether it is marked as differing.
export function poolLayout(pool, differs = []) {
  const marked = new Set(differs);
  return (pool.blocks || []).map((block, id) => ({
    id,
    x: (id % CELL.columns) * (CELL.w + CELL.gap),
    y: Math.floor(id / CELL.columns) * (CELL.h + CELL.gap),
    text: cellText(block),
    kind: cellKind(block),
    differs: marked.has(id),
  }));
}

const FILL = { owned: "#cfe3ff", shared: "#ffe2b8", free: "#eeeeee", cached: "#d9f2d9", other: "#ffffff" };

function cellView(cell) {
  const parts = [
    s("rect", {
      x: cell.x + 1,
      y: cell.y + 1,
      width: CELL.w - 2,
      height: CELL.h - 2,
      rx: 4,
      fill: FILL[cell.kind],
      stroke: cell.differs ? "#c62828" : "#888",
      "stroke-width": cell.differs ? 3 : 1,
      "stroke-dasharray": cell.differs ? "5 3" : null,
    }),
    s("text", { x: cell.x + 5, y: cell.y + 13, "font-size": 10, fill: "#555", class: "pic-muted" }, `#${cell.id}`),
    s("text", { x: cell.x + CELL.w / 2, y: cell.y + 31, "font-size": 11, "text-anchor": "middle", fill: "#111" }, cell.text),
  ];
  if (cell.differs) {
    parts.push(s("text", { x: cell.x + CELL.w - 12, y: cell.y + 14, "font-size": 13, "font-weight": "bold", fill: "#c62828", class: "pic-mark" }, "!"));
  }
  return s("g", { class: `pool-cell pool-${cell.kind}`, "data-block": cell.id, "data-differs": cell.differs ? "true" : null }, parts);
}

function queueText(pool) {
  const free = pool.free || [];
  return free.length ? free.join(" ") : say("empty");
}

// One side's grid as an accessible SVG image.
export function poolGrid(pool, differs, side, step) {
  const cells = poolLayout(pool, differs);
  const rows = Math.max(1, Math.ceil(cells.length / CELL.columns));
  const width = Math.min(cells.length, CELL.columns) * (CELL.w + CELL.gap);
  const height = rows * (CELL.h + CELL.gap) + 18;
  const described = cells.map((c) => say("cell", { id: c.id, text: c.text }) + (c.differs ? say("marked") : "")).join("; ");
  return svgImage(
    width,
    height,
    say("svgTitle", { side, step }),
    say("svgDesc", { count: cells.length, cells: described, queue: queueText(pool) }),
    cells.map(cellView),
    s("text", { x: 2, y: height - 4, "font-size": 11, fill: "#333", class: "pool-queue" }, say("free", { queue: queueText(pool) })),
  );
}

// The whole picture: a caption, the two grids, the step buttons, the legend.
export function poolPicture(picture) {
  const frames = picture.expected || [];
  const last = frames.length - 1;
  const view = h("div", { class: "pool-sides" });
  const caption = h("p", { class: "pool-step" });
  const note = h("p", { class: "pool-note muted" });
  const back = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "pool-back" }, say("back"));
  const forward = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "pool-forward" }, say("forward"));
  const root = h(
    "div",
    { class: "case-picture pool-picture", "data-picture": "pool" },
    h("h4", {}, say("title")),
    caption,
    view,
    h("div", { class: "pool-controls" }, back, forward),
    note,
    h("p", { class: "pool-legend muted" }, say("legend")),
  );
  const show = (index) => {
    const step = picture.first + index;
    const atDiff = index === last;
    const differs = atDiff ? picture.differs || [] : [];
    const got = atDiff ? picture.got : frames[index];
    root.dataset.step = String(step);
    caption.textContent = say("step", { step, op: (picture.ops || [])[index] ?? "" });
    view.replaceChildren(
      h("figure", { class: "pool-side", "data-side": "expected" }, h("figcaption", {}, say("expected")), poolGrid(frames[index], differs, say("expected"), step)),
      h("figure", { class: "pool-side", "data-side": "got" }, h("figcaption", {}, say(atDiff ? "got" : "agrees")), poolGrid(got, differs, say("got"), step)),
    );
    note.textContent = differs.length ? say("differs", { count: differs.length }) : say("same");
    back.disabled = index === 0;
    forward.disabled = index === last;
    back.onclick = () => show(index - 1);
    forward.onclick = () => show(index + 1);
  };
  if (last >= 0) show(last);
  return root;
}
