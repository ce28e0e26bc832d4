// The roofline of a failing roofline case (judge/pictures/case_pictures.py builds the data): attainable
// FLOP/s against arithmetic intensity, log-log, for the case's hardware, with the expected
// points (hollow circles) beside the learner's (crosses); shape and label, not colour,
// tell them apart.
import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { s, sayIn, svgImage } from "./svg.js";

const LABELS = {
  en: {
    title: "Roofline",
    svgTitle: "Roofline: peak {peak} TFLOP/s, {bandwidth} TB/s, ridge at {ridge} FLOP/byte",
    svgDesc: "Expected: {expected}. Got: {got}.",
    point: "{phase} at intensity {x} FLOP/byte, {y} TFLOP/s",
    none: "no point",
    x: "arithmetic intensity (FLOP/byte)",
    y: "attainable TFLOP/s",
    legend: "○ expected · × got",
  },
  zh: {
    title: "屋顶线",
    svgTitle: "屋顶线：峰值 {peak} TFLOP/s，带宽 {bandwidth} TB/s，拐点 {ridge} FLOP/字节",
    svgDesc: "期望：{expected}。实际：{got}。",
    point: "{phase}：强度 {x} FLOP/字节，{y} TFLOP/s",
    none: "无法画点",
    x: "算术强度（FLOP/字节）",
    y: "可达 TFLOP/s",
    legend: "○ 期望 · × 实际",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);

const BOX = { width: 440, height: 280, left: 56, right: 16, top: 14, bottom: 40 };
const fmt = (v) => Number(v.toPrecision(4)).toString();

// Decades that hold every point and the ridge, with a decade to spare on each side.
function decades(values) {
  const logs = values.filter((v) => v > 0).map(Math.log10);
  return [Math.floor(Math.min(...logs)) - 1, Math.ceil(Math.max(...logs)) + 1];
}

// Pixel positions of the roof and the points; pure, so the node tests can pin it.
export function rooflineLayout(data) {
  const peak = data.peak_flops_s;
  const bw = data.bandwidth_b_s;
  const ridge = peak / bw;
  const all = [...(data.expected || []), ...(data.got || [])];
  const [x0, x1] = decades([ridge, ...all.map((p) => p.intensity)]);
  const [y0, y1] = decades([peak, ...all.map((p) => p.flops_s), bw * 10 ** x0]);
  const w = BOX.width - BOX.left - BOX.right;
  const ht = BOX.height - BOX.top - BOX.bottom;
  const px = (x) => BOX.left + ((Math.log10(x) - x0) / (x1 - x0)) * w;
  const py = (y) => BOX.top + (1 - (Math.log10(y) - y0) / (y1 - y0)) * ht;
  const roof = [
    [px(10 ** x0), py(bw * 10 ** x0)],
    [px(ridge), py(peak)],
    [px(10 ** x1), py(peak)],
  ];
  const place = (side) => (p) => ({ side, phase: p.phase, x: px(p.intensity), y: py(p.flops_s), point: p });
  return {
    ridge,
    xDecades: [x0, x1],
    yDecades: [y0, y1],
    roof,
    points: [...(data.expected || []).map(place("expected")), ...(data.got || []).map(place("got"))],
    px,
    py,
  };
}

function marker(p) {
  if (p.side === "expected") {
    return s("circle", { cx: p.x, cy: p.y, r: 6, fill: "none", stroke: "#1565c0", "stroke-width": 2 });
  }
  const d = 5;
  return s("path", { d: `M${p.x - d},${p.y - d}L${p.x + d},${p.y + d}M${p.x - d},${p.y + d}L${p.x + d},${p.y - d}`, stroke: "#c62828", "stroke-width": 2.5 });
}

function axes(layout) {
  const parts = [];
  const [x0, x1] = layout.xDecades;
  const [y0, y1] = layout.yDecades;
  for (let e = x0; e <= x1; e += 1) {
    const x = layout.px(10 ** e);
    parts.push(s("line", { x1: x, x2: x, y1: BOX.top, y2: BOX.height - BOX.bottom, stroke: "#ddd" }));
    parts.push(s("text", { x, y: BOX.height - BOX.bottom + 14, "font-size": 10, "text-anchor": "middle" }, `1e${e}`));
  }
  for (let e = y0; e <= y1; e += 1) {
    const y = layout.py(10 ** e);
    parts.push(s("line", { x1: BOX.left, x2: BOX.width - BOX.right, y1: y, y2: y, stroke: "#ddd" }));
    parts.push(s("text", { x: BOX.left - 4, y: y + 3, "font-size": 10, "text-anchor": "end" }, `1e${e - 12}`));
  }
  parts.push(s("text", { x: BOX.left + 4, y: BOX.height - 4, "font-size": 11 }, say("x")));
  parts.push(s("text", { x: 12, y: BOX.top + 4, "font-size": 11, transform: `rotate(90 12 ${BOX.top + 4})` }, say("y")));
  return parts;
}

function describe(points) {
  if (!points.length) return say("none");
  return points.map((p) => say("point", { phase: p.phase, x: fmt(p.intensity), y: fmt(p.flops_s / 1e12) })).join("; ");
}

export function rooflinePicture(data) {
  const layout = rooflineLayout(data);
  const roof = s("polyline", { points: layout.roof.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#333", "stroke-width": 2 });
  const marks = layout.points.map((p) =>
    s("g", { class: `roofline-point roofline-${p.side}`, "data-side": p.side, "data-phase": p.phase }, marker(p),
      s("text", { x: p.x + 8, y: p.y + (p.side === "got" ? 14 : -6), "font-size": 10 }, p.phase)),
  );
  const image = svgImage(
    BOX.width,
    BOX.height,
    say("svgTitle", { peak: fmt(data.peak_flops_s / 1e12), bandwidth: fmt(data.bandwidth_b_s / 1e12), ridge: fmt(layout.ridge) }),
    say("svgDesc", { expected: describe(data.expected || []), got: describe(data.got || []) }),
    axes(layout),
    roof,
    marks,
  );
  return h("div", { class: "case-picture roofline-picture", "data-picture": "roofline" }, h("h4", {}, say("title")), image, h("p", { class: "muted" }, say("legend")));
}
