// Bars for a failing case whose state counts blocks or bytes instead of naming blocks
// (judge/pictures/bar_art.py builds the data): the scheduler's pool and queues, fragmentation's two
// allocators, kv-bytes-per-token's K and V. Expected beside got, with buttons to step back
// through a trace like the pool picture. Every part is written out with its size and drawn
// with its own pattern; a differing part also gets a dashed outline and a "!".
import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { s, sayIn, svgImage } from "./svg.js";

const LABELS = {
  en: {
    scheduler: "Block pool and queues",
    fragmentation: "Token slots of both allocators",
    kv_bytes: "KV bytes per token",
    blocks: "blocks",
    tokens: "token slots",
    bytes: "bytes",
    expected: "Expected",
    got: "Got",
    agrees: "Got (agrees)",
    step: "After step {step}: {op}",
    back: "◀ Step back",
    forward: "Step forward ▶",
    differs: "{count} parts differ (marked “!” with a dashed outline)",
    same: "The two sides agree after this step",
    pool: "pool",
    contiguous: "contiguous",
    paged: "paged",
    per_token: "KV per token",
    used: "used",
    internal: "internal waste",
    external: "external waste",
    hole: "largest hole",
    free: "free",
    k: "K (keys)",
    v: "V (values)",
    latent: "latent",
    rope: "rope",
    total: "total",
    running: "running",
    waiting: "waiting",
    preempted: "preempted",
    part: "{part} {size}",
    list: "{name}: [{ids}]",
    svgTitle: "{side}: {row}, in {unit}",
    gqa: "{layers} layers × 2 (K + V) × {kv_heads} KV heads × {head_dim} head dim × {bytes} bytes = {total}",
    mla: "{layers} layers × ({latent} latent + {rope} rope) × {bytes} bytes = {total}",
  },
  zh: {
    scheduler: "块池与队列",
    fragmentation: "两种分配器的 token 槽位",
    kv_bytes: "每 token 的 KV 字节",
    blocks: "块",
    tokens: "token 槽位",
    bytes: "字节",
    expected: "期望",
    got: "实际",
    agrees: "实际（一致）",
    step: "第 {step} 步之后：{op}",
    back: "◀ 上一步",
    forward: "下一步 ▶",
    differs: "{count} 个部分不同（标“!”并用虚线框出）",
    same: "这一步之后两边一致",
    pool: "块池",
    contiguous: "连续分配",
    paged: "分页",
    per_token: "每 token 的 KV",
    used: "已用",
    internal: "内部浪费",
    external: "外部浪费",
    hole: "最大空洞",
    free: "空闲",
    k: "K（键）",
    v: "V（值）",
    latent: "潜向量",
    rope: "旋转部分",
    total: "总计",
    running: "运行",
    waiting: "等待",
    preempted: "被抢占",
    part: "{part} {size}",
    list: "{name}：[{ids}]",
    svgTitle: "{side}：{row}，单位：{unit}",
    gqa: "{layers} 层 × 2（K + V）× {kv_heads} 个 KV 头 × 头维度 {head_dim} × {bytes} 字节 = {total}",
    mla: "{layers} 层 ×（潜向量 {latent} + 旋转部分 {rope}）× {bytes} 字节 = {total}",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);

const BAR = { width: 460, height: 24 };
// A pattern per part, so parts are told apart without colour (see the defs below).
const FILL = {
  used: "url(#bar-solid)",
  internal: "url(#bar-hatch)",
  external: "url(#bar-cross)",
  hole: "#ffffff",
  free: "#ffffff",
  k: "url(#bar-solid)",
  v: "url(#bar-hatch)",
  latent: "url(#bar-solid)",
  rope: "url(#bar-hatch)",
  total: "url(#bar-dots)",
};

// Where each part of one row goes, scaled so the wider side of the row fills the bar.
export function barLayout(row, widest, differs = []) {
  const marked = new Set(differs);
  const scale = BAR.width / Math.max(widest, 1);
  let x = 0;
  return (row.parts || []).map((p) => {
    const width = p.size * scale;
    const seg = { part: p.part, size: p.size, x, width, differs: marked.has(`${row.row}.${p.part}`) };
    x += width;
    return seg;
  });
}

const rowSize = (row) => (row.parts || []).reduce((sum, p) => sum + p.size, 0);

const loneTotal = (row) => (row?.parts || []).length === 1 && row.parts[0].part === "total";

// The text written under a bar: each part's size, then the request lists, "!" where they
// differ. When the other side of the row is a lone total (kv-bytes-per-token's answer), the
// parts end with their sum, so both totals are read side by side and not only from the
// formula under the bars (judge/pictures/bar_art.py sums_to says the same for `judge run`).
export function rowText(row, differs = [], other = null) {
  const marked = new Set(differs);
  // A space after the mark: "!used 3" reads as one word, or as "not used".
  const mark = (key) => (marked.has(`${row.row}.${key}`) ? "! " : "");
  const parts = (row.parts || []).map((p) => mark(p.part) + say("part", { part: say(p.part), size: p.size }));
  const lists = Object.entries(row.lists || {}).map(([name, ids]) => mark(name) + say("list", { name: say(name), ids: ids.join(" ") }));
  const text = [...parts, ...lists].join(" · ");
  if (!loneTotal(other) || loneTotal(row)) return text;
  return `${text} = ${say("part", { part: say("total"), size: rowSize(row) })}`;
}

function patterns() {
  const pattern = (id, ...children) => s("pattern", { id, width: 6, height: 6, patternUnits: "userSpaceOnUse" }, ...children);
  return s(
    "defs",
    {},
    pattern("bar-solid", s("rect", { width: 6, height: 6, fill: "#90a4ae" })),
    pattern("bar-hatch", s("rect", { width: 6, height: 6, fill: "#ffe0b2" }), s("line", { x1: 0, y1: 6, x2: 6, y2: 0, stroke: "#e65100", "stroke-width": 1.5 })),
    pattern("bar-cross", s("rect", { width: 6, height: 6, fill: "#ffcdd2" }), s("path", { d: "M0 0L6 6M6 0L0 6", stroke: "#b71c1c", "stroke-width": 1 })),
    pattern("bar-dots", s("rect", { width: 6, height: 6, fill: "#e1f5fe" }), s("circle", { cx: 3, cy: 3, r: 1.3, fill: "#01579b" })),
  );
}

function barImage(row, widest, differs, side, unit, other) {
  const segs = barLayout(row, widest, differs);
  const text = rowText(row, differs, other);
  const parts = segs.map((seg) =>
    s("g", { class: `bar-part bar-${seg.part}`, "data-part": seg.part, "data-differs": seg.differs ? "true" : null }, [
      s("rect", {
        x: seg.x + 1,
        y: 1,
        width: Math.max(seg.width - 1, 0),
        height: BAR.height,
        fill: FILL[seg.part] || "#ffffff",
        stroke: seg.differs ? "#c62828" : "#555",
        "stroke-width": seg.differs ? 3 : 1,
        "stroke-dasharray": seg.differs ? "5 3" : null,
      }),
      seg.differs && seg.width > 10 ? s("text", { x: seg.x + 4, y: 17, "font-size": 13, "font-weight": "bold", fill: "#c62828", class: "pic-mark" }, "!") : null,
    ]),
  );
  return svgImage(BAR.width + 2, BAR.height + 4, say("svgTitle", { side, row: say(row.row), unit: say(unit) }), text + ".", patterns(), parts);
}

// One side's rows; `others` is the other side's frame, row for row.
function side(name, caption, frame, others, widths, differs, unit) {
  return h(
    "figure",
    { class: "bar-side pool-side", "data-side": name },
    h("figcaption", {}, caption),
    (frame || []).map((row, i) => {
      const other = (others || [])[i];
      const image = barImage(row, widths[i], differs, caption, unit, other);
      return h("div", { class: "bar-row", "data-row": row.row }, h("span", { class: "bar-name" }, say(row.row)), image, h("p", { class: "bar-text" }, rowText(row, differs, other)));
    }),
  );
}

export function formulaText(picture) {
  const f = picture.formula || {};
  if (!Object.keys(f).length) return "";
  const total = rowSize((picture.expected[0] || [])[0] || {});
  return say(f.latent !== undefined ? "mla" : "gqa", { ...f, total });
}

// The classes pool-sides, pool-side and pool-controls reuse the pool picture's styles.
// The whole picture: a caption, the two sides, the step buttons for a trace, the formula.
export function barPicture(picture) {
  const frames = picture.expected || [];
  const last = frames.length - 1;
  const trace = typeof picture.step === "number";
  const view = h("div", { class: "bar-sides pool-sides" });
  const caption = h("p", { class: "bar-step" });
  const note = h("p", { class: "bar-note muted" });
  const back = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "bar-back" }, say("back"));
  const forward = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "bar-forward" }, say("forward"));
  const formula = formulaText(picture);
  const root = h(
    "div",
    { class: "case-picture bar-picture", "data-picture": "bars", "data-subject": picture.subject },
    h("h4", {}, say(picture.subject)),
    trace ? caption : null,
    view,
    trace ? h("div", { class: "bar-controls pool-controls" }, back, forward) : null,
    note,
    formula ? h("p", { class: "bar-formula" }, formula) : null,
  );
  const show = (index) => {
    const atDiff = index === last;
    const differs = atDiff ? picture.differs || [] : [];
    const got = atDiff ? picture.got : frames[index];
    const widths = frames[index].map((row, i) => Math.max(rowSize(row), rowSize((got || [])[i] || {})));
    if (trace) {
      const step = picture.first + index;
      root.dataset.step = String(step);
      caption.textContent = say("step", { step, op: (picture.ops || [])[index] ?? "" });
    }
    view.replaceChildren(
      side("expected", say("expected"), frames[index], got, widths, differs, picture.unit),
      side("got", say(atDiff ? "got" : "agrees"), got, frames[index], widths, differs, picture.unit),
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
