// The timeline of a serving engine's failing case (judge/pictures/timeline_art.py builds the
// data): for the reference's run and for the learner's, one row per request and one column
// per step, each cell a prefill chunk, a decode step, a recomputation after a preemption or a
// wait; under the rows, the blocks each step's batch held against the pool's size. Every cell
// carries its letter (P, D, R, ·) as well as its fill, so nothing is told apart by colour alone.
import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { s, sayIn, svgImage } from "./svg.js";

const LABELS = {
  en: {
    title: "Timeline of the run",
    expected: "Reference",
    got: "Yours",
    // Name first, count after: reads right for 1 as for 12 ("recomputations 1").
    summary: "steps {steps} · prefill chunks {prefill} · decode steps {decode} · recomputations {recompute} · blocks held at most {peak} of {pool}",
    legend: "P prefill chunk · D decode · R recomputed after a preemption · · waiting · bars: blocks the step's batch held",
    none: "Yours: no timeline to draw (the run returned none that could be read)",
    cut: "The run went on past the {steps} steps shown.",
    request: "r{id}",
    blocks: "blocks",
    step: "step",
    svgTitle: "{side}: timeline of {steps} steps",
    svgDesc: "{rows}. Blocks held per step: {blocks}.",
    row: "request {id}: {cells}",
    P: "prefill", D: "decode", R: "recompute", ".": "waiting",
  },
  zh: {
    title: "运行时间线",
    expected: "参考答案",
    got: "你的引擎",
    summary: "{steps} 步 · {prefill} 次预填充分块 · {decode} 次解码 · {recompute} 次重算 · 最多占用 {pool} 个块中的 {peak} 个",
    legend: "P 预填充分块 · D 解码 · R 被抢占后重算 · · 等待 · 柱：该步批次占用的块",
    none: "你的引擎：没有可画的时间线（返回的数据无法读取）",
    cut: "运行超出了这里显示的 {steps} 步。",
    request: "r{id}",
    blocks: "块",
    step: "步",
    svgTitle: "{side}：{steps} 步的时间线",
    svgDesc: "{rows}。每步占用的块：{blocks}。",
    row: "请求 {id}：{cells}",
    P: "预填充", D: "解码", R: "重算", ".": "等待",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);

const KINDS = { P: "prefill", D: "decode", R: "recompute", ".": "waiting" };
const FILL = { prefill: "#bbdefb", decode: "#c8e6c9", recompute: "#ffcc80", waiting: "#f5f5f5" };
const SHOWN = { P: "P", D: "D", R: "R", ".": "·" };
const GRID = { left: 34, top: 16, row: 14, bars: 36, widest: 640 };

// Counts of one side, as judge/pictures/timeline_art.py summary() gives them to `judge run`.
export function timelineSummary(side) {
  const text = side.rows.join("");
  const count = (letter) => [...text].filter((c) => c === letter).length;
  return {
    steps: side.steps,
    prefill: count("P"),
    decode: count("D"),
    recompute: count("R"),
    peak: Math.max(0, ...side.blocks),
    pool: side.pool,
  };
}

// Where every cell and bar goes: cells of one width that fits the widest side's steps.
export function timelineLayout(side, steps) {
  const cell = Math.max(3, Math.min(12, Math.floor((GRID.widest - GRID.left) / Math.max(steps, 1))));
  const cells = [];
  side.rows.forEach((row, id) => {
    [...row].forEach((letter, step) => {
      const kind = KINDS[letter];
      if (!kind) return; // not arrived yet, or finished
      cells.push({ id, step, kind, letter: SHOWN[letter], x: GRID.left + step * cell, y: GRID.top + id * GRID.row });
    });
  });
  const base = GRID.top + side.rows.length * GRID.row + 6 + GRID.bars;
  const bars = side.blocks.map((held, step) => {
    const height = side.pool ? (held / side.pool) * GRID.bars : 0;
    return { step, held, x: GRID.left + step * cell, y: base - height, height };
  });
  return { cell, cells, bars, base, width: GRID.left + steps * cell + 4, height: base + 14 };
}

function chart(name, side, steps) {
  const layout = timelineLayout(side, steps);
  const parts = [];
  side.rows.forEach((_, id) => {
    parts.push(s("text", { x: 0, y: GRID.top + id * GRID.row + 10, "font-size": 9, class: "pic-muted" }, say("request", { id })));
  });
  for (let tens = 0; tens < steps; tens += 10) {
    parts.push(s("text", { x: GRID.left + tens * layout.cell, y: 10, "font-size": 9, class: "pic-muted" }, String(tens)));
  }
  for (const c of layout.cells) {
    const label = layout.cell >= 8 ? s("text", { x: c.x + layout.cell / 2, y: c.y + 10, "font-size": 8, "text-anchor": "middle" }, c.letter) : null;
    parts.push(s("g", { class: `timeline-cell timeline-${c.kind}`, "data-kind": c.kind, "data-request": c.id, "data-step": c.step },
      s("rect", { x: c.x, y: c.y, width: layout.cell - 1, height: GRID.row - 2, fill: FILL[c.kind], stroke: c.kind === "recompute" ? "#e65100" : "none" }),
      label));
  }
  parts.push(s("text", { x: 0, y: layout.base, "font-size": 9, class: "pic-muted" }, say("blocks")));
  parts.push(s("line", { x1: GRID.left, x2: layout.width, y1: layout.base - GRID.bars, y2: layout.base - GRID.bars, stroke: "#999", "stroke-dasharray": "3 2", class: "timeline-pool" }));
  for (const b of layout.bars) {
    parts.push(s("rect", { x: b.x, y: b.y, width: Math.max(layout.cell - 1, 1), height: b.height, fill: "#90a4ae", class: "timeline-blocks", "data-step": b.step, "data-held": b.held }));
  }
  const rows = side.rows.map((row, id) => say("row", { id, cells: [...row].map((c) => (KINDS[c] ? say(c) : "-")).join(" ") }));
  const title = say("svgTitle", { side: name, steps: side.steps });
  const desc = say("svgDesc", { rows: rows.join("; "), blocks: side.blocks.join(" ") });
  return svgImage(layout.width, layout.height, title, desc, parts);
}

function figure(sideName, side, steps) {
  const name = say(sideName);
  const cut = side.steps > side.blocks.length ? h("p", { class: "muted" }, say("cut", { steps: side.blocks.length })) : null;
  return h("figure", { class: "timeline-side", "data-side": sideName },
    h("figcaption", {}, `${name}: ${say("summary", timelineSummary(side))}`),
    chart(name, side, steps),
    cut);
}

export function timelinePicture(data) {
  const steps = Math.max(data.expected.blocks.length, data.got ? data.got.blocks.length : 0);
  return h("div", { class: "case-picture timeline-picture", "data-picture": "timeline" },
    h("h4", {}, say("title")),
    h("p", { class: "muted timeline-legend" }, say("legend")),
    figure("expected", data.expected, steps),
    data.got ? figure("got", data.got, steps) : h("p", { class: "muted" }, say("none")));
}
