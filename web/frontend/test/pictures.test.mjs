// The case pictures' layouts (issue 12, section 2): what each cell says and which are
// marked, where the roofline's points sit, how the memory bar splits, how the count bars
// (scheduler, fragmentation, KV bytes per token) split and say what differs. The DOM side is
// pinned by tests/web/e2e/test_case_pictures.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { barLayout, formulaText, rowText, say as barSay } from "../src/bar_picture.js";
import { gb, memorySegments } from "../src/memory_picture.js";
import { cellKind, cellText, poolLayout, say } from "../src/pool_picture.js";
import { rooflineLayout } from "../src/roofline_picture.js";

test("a cell says who holds the block, its references, its place in the queue and its cache mark", () => {
  assert.equal(cellText({ owners: [0, 1], ref: 2, cached: false, free_at: null }), "s0+1");
  assert.equal(cellText({ owners: [0], ref: 2, cached: false, free_at: null }), "s0 x2");
  assert.equal(cellText({ owners: [], ref: 0, cached: true, free_at: 3 }), "f@3 c");
  assert.equal(cellText({ owners: [], ref: null, cached: false, free_at: null }), "-");
  assert.equal(cellKind({ owners: [0, 1], ref: 2 }), "shared");
  assert.equal(cellKind({ owners: [], free_at: 0, cached: true }), "cached");
});

test("the grid marks exactly the differing blocks, eight to a row", () => {
  const blocks = Array.from({ length: 10 }, (_, i) => ({ owners: [], ref: null, cached: false, free_at: i }));
  const cells = poolLayout({ blocks, free: [] }, [2, 9]);
  assert.deepEqual(cells.filter((c) => c.differs).map((c) => c.id), [2, 9]);
  assert.equal(cells[8].x, 0);
  assert.ok(cells[8].y > cells[7].y);
});

test("the pool's labels exist in both languages", () => {
  assert.equal(say("back", {}, "en"), "◀ Step back");
  assert.equal(say("back", {}, "zh"), "◀ 上一步");
  assert.equal(say("step", { step: 2, op: "free(seq_id=1)" }, "zh"), "第 2 步之后：free(seq_id=1)");
});

test("the roof bends at the ridge and a slower answer sits under it", () => {
  const data = {
    peak_flops_s: 989e12,
    bandwidth_b_s: 3.35e12,
    expected: [{ phase: "prefill", intensity: 441.1, flops_s: 989e12 }],
    got: [{ phase: "prefill", intensity: 441.1, flops_s: 592.5e12 }],
  };
  const layout = rooflineLayout(data);
  assert.ok(Math.abs(layout.ridge - 295.22) < 0.01);
  const [, knee, end] = layout.roof;
  assert.equal(knee[1], end[1]); // flat at the peak past the ridge
  const [want, got] = layout.points;
  assert.equal(want.x, got.x);
  assert.ok(got.y > want.y, "a lower FLOP/s is drawn lower (larger y)");
  assert.equal(want.y, knee[1]);
});

test("the memory bar splits into weights, KV, what is left and what is reserved", () => {
  const data = { call: "max_requests", total: 80e9, usable: 72e9 };
  const parts = memorySegments(data, { weights: 16e9, kv: 50e9, requests: 104 });
  assert.deepEqual(parts.map((p) => p.kind), ["weights", "kv", "left", "reserved"]);
  assert.deepEqual(parts.map((p) => p.bytes), [16e9, 50e9, 6e9, 8e9]);
  assert.equal(parts[1].label, "KV 50.0 GB (104 requests)");
  const over = memorySegments(data, { weights: 16e9, kv: 60e9, requests: 200 });
  assert.equal(over[2].kind, "over");
  assert.equal(gb(1.25e9), "1.3 GB");
});

test("a bar scales both sides of a row alike and marks exactly the differing parts", () => {
  const want = { row: "contiguous", parts: [{ part: "used", size: 10 }, { part: "external", size: 0 }, { part: "hole", size: 246 }] };
  const got = { row: "contiguous", parts: [{ part: "used", size: 10 }, { part: "external", size: 128 }, { part: "hole", size: 118 }] };
  const differs = ["contiguous.external", "contiguous.hole"];
  const a = barLayout(want, 256, differs);
  const b = barLayout(got, 256, differs);
  assert.deepEqual(b.filter((p) => p.differs).map((p) => p.part), ["external", "hole"]);
  assert.equal(a[0].width, b[0].width);
  assert.equal(b[2].x + b[2].width, 460); // the full pool fills the bar
  assert.equal(a[1].width, 0);
});

test("a bar's text writes every size and queue, with a mark where they differ", () => {
  const row = { row: "pool", parts: [{ part: "used", size: 3 }, { part: "free", size: 1 }], lists: { running: [0], waiting: [2, 1] } };
  assert.equal(rowText(row, ["pool.waiting"]), "used 3 · free 1 · running: [0] · ! waiting: [2 1]");
  assert.equal(barSay("waiting", {}, "zh"), "等待");
  assert.equal(barSay("back", {}, "zh"), "◀ 上一步");
});

// "!used 3" read as one word (or as "not used"): the mark stands apart from its label.
test("a bar's differing-part mark is set off from the label by a space", () => {
  const row = { row: "pool", parts: [{ part: "used", size: 3 }], lists: { waiting: [1] } };
  assert.equal(rowText(row, ["pool.used", "pool.waiting"]), "! used 3 · ! waiting: [1]");
});

test("the expected KV bar ends with its total when the got bar is a total", () => {
  // Pins the issue "kv-bytes' expected bar has no total": K and V were written alone.
  const want = { row: "per_token", parts: [{ part: "k", size: 57344 }, { part: "v", size: 57344 }] };
  const got = { row: "per_token", parts: [{ part: "total", size: 229376 }] };
  assert.equal(rowText(want, [], got), "K (keys) 57344 · V (values) 57344 = total 114688");
  assert.equal(rowText(got, ["per_token.total"], want), "! total 229376");
  const pool = { row: "pool", parts: [{ part: "used", size: 3 }, { part: "free", size: 1 }] };
  assert.equal(rowText(pool, [], pool), "used 3 · free 1");
});

test("the per-token formula multiplies out to the expected K and V", () => {
  const picture = {
    expected: [[{ row: "per_token", parts: [{ part: "k", size: 57344 }, { part: "v", size: 57344 }] }]],
    formula: { layers: 28, kv_heads: 8, head_dim: 128, bytes: 2 },
  };
  const text = formulaText(picture);
  assert.equal(text, "28 layers × 2 (K + V) × 8 KV heads × 128 head dim × 2 bytes = 114688");
  assert.equal(28 * 2 * 8 * 128 * 2, 114688);
  const mla = formulaText({ ...picture, formula: { layers: 2, latent: 4, rope: 2, bytes: 1 } });
  assert.ok(mla.startsWith("2 layers × (4 latent + 2 rope)"));
});

test("a serving timeline puts one cell per request and step, and the blocks against the pool", async () => {
  const { timelineLayout, timelineSummary, say: timelineSay } = await import("../src/timeline_picture.js");
  const side = { rows: ["PDD ", " .RD"], blocks: [2, 3, 4, 1], pool: 8, steps: 4 };
  const layout = timelineLayout(side, 4);
  assert.deepEqual(layout.cells.map((c) => [c.id, c.step, c.kind]), [
    [0, 0, "prefill"], [0, 1, "decode"], [0, 2, "decode"],
    [1, 1, "waiting"], [1, 2, "recompute"], [1, 3, "decode"],
  ]);
  assert.equal(layout.cells.find((c) => c.kind === "recompute").letter, "R");
  const [, , full] = layout.bars;
  assert.equal(full.held, 4);
  assert.equal(full.height, 18, "half the pool is half the bars' height");
  assert.deepEqual(timelineSummary(side), { steps: 4, prefill: 1, decode: 3, recompute: 1, peak: 4, pool: 8 });
  assert.equal(timelineSay("expected", {}, "zh"), "参考答案");
  assert.ok(timelineSay("legend", {}, "en").includes("R recomputed after a preemption"));
});
