// GPU memory for a failing kv-capacity case (judge/pictures/case_pictures.py builds the data): one bar
// for expected and one for got, split into weights and KV (and, for max_requests, what is
// left of the usable memory and what the utilisation keeps back). Segments are told apart
// by pattern and by their written sizes, not by colour alone.
import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { s, sayIn, svgImage } from "./svg.js";

const LABELS = {
  en: {
    capacity: "GPU memory",
    read: "Bytes one decode step reads",
    expected: "expected",
    got: "got",
    weights: "weights {size}",
    kv: "KV {size}",
    requests: "KV {size} ({requests} requests)",
    left: "left {size}",
    reserved: "reserved {size}",
    over: "over by {size}",
    svgDesc: "{rows}.",
    none: "got: nothing to draw",
  },
  zh: {
    capacity: "GPU 显存",
    read: "一步解码读取的字节",
    expected: "期望",
    got: "实际",
    weights: "权重 {size}",
    kv: "KV {size}",
    requests: "KV {size}（{requests} 个请求）",
    left: "剩余 {size}",
    reserved: "预留 {size}",
    over: "超出 {size}",
    svgDesc: "{rows}。",
    none: "实际：无法画出",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);

export const gb = (bytes) => `${(bytes / 1e9).toFixed(1)} GB`;

// The segments of one bar, in order, each with its size and label.
export function memorySegments(data, split) {
  const parts = [{ kind: "weights", bytes: split.weights, label: say("weights", { size: gb(split.weights) }) }];
  const kvLabel = typeof split.requests === "number"
    ? say("requests", { size: gb(split.kv), requests: split.requests })
    : say("kv", { size: gb(split.kv) });
  parts.push({ kind: "kv", bytes: split.kv, label: kvLabel });
  if (data.call === "max_requests") {
    const left = data.usable - split.weights - split.kv;
    if (left >= 0) parts.push({ kind: "left", bytes: left, label: say("left", { size: gb(left) }) });
    else parts.push({ kind: "over", bytes: 0, label: say("over", { size: gb(-left) }) });
    parts.push({ kind: "reserved", bytes: data.total - data.usable, label: say("reserved", { size: gb(data.total - data.usable) }) });
  }
  return parts;
}

const BAR = { width: 460, left: 70, height: 26, row: 58 };
const FILL = { weights: "#9e9e9e", kv: "url(#kv-hatch)", left: "#ffffff", reserved: "#eeeeee", over: "#ffffff" };

function bar(row, name, segments, scale) {
  const y = 8 + row * BAR.row;
  let x = BAR.left;
  const parts = [s("text", { x: 0, y: y + 17, "font-size": 12 }, name)];
  segments.forEach((seg, i) => {
    const w = seg.bytes * scale;
    parts.push(s("rect", { x, y, width: Math.max(w, 0), height: BAR.height, fill: FILL[seg.kind], stroke: "#555", class: `memory-${seg.kind}` }));
    // Labels near the right edge end there instead of running off the image.
    const late = x > BAR.width * 0.6;
    const at = late ? BAR.width - 2 : x + 2;
    parts.push(s("text", { x: at, y: y + BAR.height + 12 + (i % 2) * 11, "font-size": 10, "text-anchor": late ? "end" : null }, seg.label));
    x += w;
  });
  return s("g", { class: "memory-bar", "data-side": name }, parts);
}

export function memoryPicture(data) {
  const rows = [[say("expected"), memorySegments(data, data.expected)]];
  if (data.got) rows.push([say("got"), memorySegments(data, data.got)]);
  const sum = (segs) => segs.reduce((total, seg) => total + seg.bytes, 0);
  const widest = Math.max(...rows.map(([, segs]) => sum(segs)), data.total || 0);
  const scale = (BAR.width - BAR.left - 4) / widest;
  const hatch = s("defs", {}, s("pattern", { id: "kv-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    s("rect", { width: 6, height: 6, fill: "#bbdefb" }), s("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#1565c0", "stroke-width": 2 })));
  const title = say(data.call === "decode_step" ? "read" : "capacity");
  const desc = say("svgDesc", { rows: rows.map(([name, segs]) => `${name}: ${segs.map((seg) => seg.label).join(", ")}`).join("; ") });
  const image = svgImage(BAR.width, 12 + rows.length * BAR.row, title, desc, hatch, rows.map(([name, segs], i) => bar(i, name, segs, scale)));
  return h("div", { class: "case-picture memory-picture", "data-picture": "memory" }, h("h4", {}, title), image, data.got ? null : h("p", { class: "muted" }, say("none")));
}
