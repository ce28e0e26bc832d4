// The step model behind the landing page's "why K and V can be cached" strip (issue 12,
// section 2): a two-layer causal attention with 2-wide vectors, run the way an engine runs
// it. The prompt is prefilled in one step, then each decode step feeds one token and keeps
// every layer's K and V in a cache. The numbers are real: `recompute` runs the whole prefix
// again with no cache, and its K/V for the old positions come out the same as the cached
// ones, which is what the strip claims (the node test checks it). Two layers, not one,
// because in a single layer K_j = x_j·W_k would trivially depend on token j alone; from the
// second layer on it depends on every earlier token, and still never on a later one.

const D = 2;
// Fixed weights; any would do. These keep the shown numbers within about ±2.
const LAYERS = [
  { q: [[0.9, -0.4], [0.3, 0.8]], k: [[0.7, 0.5], [-0.6, 0.9]], v: [[0.8, -0.3], [0.4, 0.6]] },
  { q: [[0.5, 0.7], [-0.8, 0.4]], k: [[0.6, -0.7], [0.5, 0.5]], v: [[-0.4, 0.9], [0.7, 0.3]] },
];

const range = (start, end) => Array.from({ length: end - start }, (_, i) => start + i);
const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const times = (x, w) => range(0, D).map((c) => dot(x, w.map((row) => row[c])));

// A token's input vector: from its text and its place, so the same word at two places differs.
export function embed(token, position) {
  const seed = [...token].reduce((sum, ch) => (sum * 31 + ch.codePointAt(0)) % 997, 7);
  return [Math.sin(seed * 0.7 + position * 1.1), Math.cos(seed * 0.3 + position * 0.9)];
}

function softmax(scores) {
  const top = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - top));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / total);
}

// One layer over the rows at positions start.. (xs), appending their K and V to `cache`.
// Row p attends to cache positions 0..p only: the causal mask. Returns each row's output
// (residual + attention), its query and its attention weights.
function layer(weights, cache, xs, start) {
  const qs = xs.map((x) => times(x, weights.q));
  for (const x of xs) {
    cache.k.push(times(x, weights.k));
    cache.v.push(times(x, weights.v));
  }
  const rows = xs.map((x, i) => {
    const visible = range(0, start + i + 1);
    const w = softmax(visible.map((j) => dot(qs[i], cache.k[j]) / Math.sqrt(D)));
    const out = x.map((value, c) => value + visible.reduce((sum, j) => sum + w[j] * cache.v[j][c], 0));
    return { out, q: qs[i], weights: w };
  });
  return rows;
}

// Feeds tokens[start..end) through both layers; returns the last layer's rows.
function forward(caches, tokens, start, end) {
  let xs = range(start, end).map((p) => embed(tokens[p], p));
  let rows = [];
  LAYERS.forEach((weights, l) => {
    rows = layer(weights, caches[l], xs, start);
    xs = rows.map((row) => row.out);
  });
  return rows;
}

const emptyCaches = () => LAYERS.map(() => ({ k: [], v: [] }));

/** The last layer's K and V of tokens[0..length), computed from scratch with no cache. */
export function recompute(tokens, length) {
  const caches = emptyCaches();
  forward(caches, tokens, 0, length);
  return { keys: caches.at(-1).k, values: caches.at(-1).v };
}

/** Tokens run through the model to generate `generated` tokens after a `prompt`-token
 * prompt: with a cache the prompt once, then one token a step; without, the whole prefix
 * every step (about n²/2 for n tokens from a short prompt). */
export function workFor(prompt, generated) {
  const lengths = range(prompt, prompt + generated);
  return {
    cached: prompt + Math.max(0, generated - 1),
    uncached: lengths.reduce((a, b) => a + b, 0),
  };
}

/** The strip's steps. tokens: the sentence, whose last token is only ever an output; the
 * first `prompt` are the prompt. Each step: its phase, the positions fed in (`inputs`),
 * the sequence length after it, the token it outputs, the cache's K/V, the new queries with
 * their attention weights, and the tokens processed so far with and without a cache. */
export function kvSteps(tokens, prompt) {
  const positions = tokens.length - 1;
  const caches = emptyCaches();
  const steps = [];
  const done = { cached: 0, uncached: 0 };
  for (let start = 0; start < positions; ) {
    const end = start === 0 ? prompt : start + 1;
    const rows = forward(caches, tokens, start, end);
    done.cached += end - start;
    done.uncached += end; // without a cache the whole prefix goes through again
    const top = caches.at(-1);
    steps.push({
      phase: start === 0 ? "prefill" : "decode",
      inputs: range(start, end),
      length: end,
      positions,
      output: tokens[end],
      keys: top.k.map((k) => k.slice()),
      values: top.v.map((v) => v.slice()),
      queries: rows.map((row, i) => ({ position: start + i, q: row.q, weights: row.weights })),
      processed: { ...done },
    });
    start = end;
  }
  return steps;
}

/** Each position's K/V at a step: "new" (computed at this step), "reused" (read from the
 * cache), "recomputed" (without a cache: computed again, to the same values) or "future"
 * (not in the sequence yet; the mask hides it). */
export function kvMarks(step, withCache = true) {
  const first = step.inputs[0];
  return range(0, step.positions).map((j) => {
    if (j >= step.length) return "future";
    if (j >= first) return "new";
    return withCache ? "reused" : "recomputed";
  });
}
