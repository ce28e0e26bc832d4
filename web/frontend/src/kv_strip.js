// The landing page's "why K and V can be cached" strip (issue 12, section 2; the chapter
// opens with it as six panels): step a short sentence through a tiny causal attention
// (src/kv_steps.js computes it) and see, per position, whether its K and V are computed
// at this step or read from the cache. Every mark is a word and a border style besides its
// colour; future positions are greyed and say "masked". The caption is a live region, so
// a screen reader hears each step; the buttons are ordinary buttons, and ←/→ step too.
import { clear, h } from "./dom.js";
import { lang } from "./i18n.js";
import { kvMarks, kvSteps, workFor } from "./kv_steps.js";
import { sayIn } from "./svg.js";

const PROMPT = 3;
const LABELS = {
  en: {
    // The last token is only ever an output: the sentence ends with it.
    tokens: ["The", "cat", "sat", "on", "the", "mat", "."],
    title: "Why K and V can be cached",
    intro:
      "A two-layer causal attention with 2-number vectors, run on a short sentence. The prompt is the first three words; step through it one token at a time.",
    prev: "◀ Previous",
    next: "Next token ▶",
    noCache: "Without a cache",
    stepOf: "Step {step} of {count}: {phase}",
    prefill: "prefill",
    decode: "decode",
    token: "Token",
    attention: "q({token}) →",
    new: "new",
    reused: "cached",
    recomputed: "again",
    future: "masked",
    masked: "masked",
    legend:
      "q(x) →: how much the query of x attends to each position (a row sums to 1) · new: computed at this step · cached: read from the cache, unchanged · again: computed again to the same value · masked: a later position, which the causal mask hides. Q is used once by its own token and never cached.",
    capPrefill:
      "Prefill: the {count} prompt tokens go through together. Each gets its Q, K and V; the mask lets token i look only at tokens up to i. K and V go into the cache, and the model outputs “{out}”.",
    capDecode:
      "Decode: only “{token}” is new. Its Q meets its own K/V and the {cached} cached ones, which have not changed: under the causal mask a token’s K and V depend only on it and the tokens before it. Output: “{out}”.",
    capNoCache:
      "Without a cache: all {length} tokens go through again to output “{out}”. The {again} old K/V come out exactly as before: wasted work.",
    work: "Tokens run through the model so far: {cached} with the cache, {uncached} without.",
    workAt:
      "Generating {n} tokens from a one-token prompt: {cached} with the cache, {uncached} without (about n²/2).",
  },
  zh: {
    tokens: ["小猫", "安静", "地", "坐", "在", "垫子", "上"],
    title: "为什么 K、V 可以缓存",
    intro: "一个两层的因果注意力，向量只有 2 维，在一句短句上运行。前三个词是提示词；一次走一个 token。",
    prev: "◀ 上一步",
    next: "下一个 token ▶",
    noCache: "不用缓存",
    stepOf: "第 {step} 步，共 {count} 步：{phase}",
    prefill: "prefill",
    decode: "decode",
    token: "token",
    attention: "q（{token}）→",
    new: "新算",
    reused: "缓存",
    recomputed: "重算",
    future: "屏蔽",
    masked: "屏蔽",
    legend:
      "q（x）→：x 的 query 对各位置的注意力权重（每行和为 1） · 新算：这一步计算 · 缓存：从缓存读取，没有变化 · 重算：再算一遍，结果相同 · 屏蔽：之后的位置，被因果掩码挡住。Q 只被它自己的 token 用一次，从不缓存。",
    capPrefill:
      "Prefill：{count} 个提示词 token 一起计算，各自得到 Q、K、V；掩码让第 i 个 token 只能看到第 i 个及之前的 token。K、V 写入缓存，模型输出“{out}”。",
    capDecode:
      "Decode：只有“{token}”是新的。它的 Q 与自己的 K/V 和缓存里的 {cached} 组 K/V 做注意力；缓存的 K/V 没有变：因果掩码下，一个 token 的 K、V 只依赖它自己和之前的 token。输出：“{out}”。",
    capNoCache: "不用缓存：{length} 个 token 全部重新计算，才输出“{out}”。其中 {again} 组旧的 K/V 算出来和之前完全一样：白算了。",
    work: "到这一步为止经过模型的 token 数：用缓存 {cached} 个，不用缓存 {uncached} 个。",
    workAt: "从 1 个 token 的提示词生成 {n} 个 token：用缓存 {cached} 个，不用缓存 {uncached} 个（约 n²/2）。",
  },
};

export const say = (key, params = {}, language = lang) => sayIn(LABELS, language, key, params);
const number = (n, language) => n.toLocaleString(language === "zh" ? "zh-CN" : "en-US");
// A minus sign, not a hyphen, so "−0.4" reads as a number.
const fixed = (x, digits) => x.toFixed(digits).replace(/^-/, "−").replace(/^−(0\.0+)$/, "$1");

/** The caption of a step: prefill or decode, and why the cached K/V can be reused. */
export function caption(step, withCache, language = lang) {
  const tokens = LABELS[language].tokens;
  const out = step.output;
  if (step.phase === "prefill") return say("capPrefill", { count: step.length, out }, language);
  const token = tokens[step.inputs[0]];
  if (!withCache) return say("capNoCache", { length: step.length, again: step.length - 1, out }, language);
  return say("capDecode", { token, cached: step.length - 1, out }, language);
}

function vector(values) {
  return h("span", { class: "kv-vec" }, ...values.map((x) => h("span", {}, fixed(x, 1))));
}

function kvRow(name, step, marks, pick, tr) {
  return h(
    "tr",
    { class: `kv-row-${name.toLowerCase()}` },
    h("th", { scope: "row" }, name),
    ...marks.map((mark, j) =>
      h(
        "td",
        { class: `kv-cell kv-${mark}`, "data-kv": mark },
        mark === "future" ? h("span", { class: "kv-vec" }, "·") : vector(pick(step)[j]),
        h("span", { class: "kv-mark" }, tr(mark)),
      ),
    ),
  );
}

function attentionRow(query, positions, tokens, tr) {
  return h(
    "tr",
    { class: "kv-row-attention", "data-query": query.position },
    h("th", { scope: "row" }, tr("attention", { token: tokens[query.position] })),
    ...Array.from({ length: positions }, (_, j) =>
      j < query.weights.length
        ? h("td", { class: "kv-weight" }, fixed(query.weights[j], 2))
        : h("td", { class: "kv-weight kv-masked", "data-mask": "future" }, tr("masked")),
    ),
  );
}

function table(step, withCache, tokens, tr) {
  const marks = kvMarks(step, withCache);
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, tr("token")),
    ...marks.map((mark, j) =>
      h("th", { scope: "col", class: mark === "future" ? "kv-future" : step.inputs.includes(j) ? "kv-fed" : "" }, tokens[j]),
    ),
  );
  return h(
    "table",
    { class: "kv-grid" },
    h("thead", {}, head),
    h(
      "tbody",
      {},
      kvRow("K", step, marks, (s) => s.keys, tr),
      kvRow("V", step, marks, (s) => s.values, tr),
      step.queries.map((query) => attentionRow(query, step.positions, tokens, tr)),
    ),
  );
}

/** Builds the strip into `mount` (an empty element the landing page renders). */
export function mountKvStrip(mount, language = lang) {
  const tr = (key, params = {}) => say(key, params, language);
  const tokens = LABELS[language].tokens;
  const steps = kvSteps(tokens, PROMPT);
  const state = { index: 0, withCache: true };
  const prev = h("button", { type: "button", "data-action": "kv-prev" }, tr("prev"));
  const next = h("button", { type: "button", "data-action": "kv-next" }, tr("next"));
  const toggle = h("input", { type: "checkbox", "data-action": "kv-no-cache" });
  const status = h("span", { class: "kv-status" });
  const figure = h("div", { class: "kv-figure" });
  const live = h("p", { class: "kv-caption", "aria-live": "polite" });
  const work = h("p", { class: "kv-work" });
  const far = workFor(1, 1000);

  function render() {
    const step = steps[state.index];
    mount.dataset.step = String(state.index);
    mount.dataset.phase = step.phase;
    status.textContent = tr("stepOf", {
      step: state.index + 1,
      count: steps.length,
      phase: tr(step.phase),
    });
    clear(figure).append(table(step, state.withCache, tokens, tr));
    live.textContent = caption(step, state.withCache, language);
    work.textContent = tr("work", {
      cached: number(step.processed.cached, language),
      uncached: number(step.processed.uncached, language),
    });
    // A disabled button loses focus; hand it to the other one so the keyboard stays here.
    for (const [button, off, other] of [
      [prev, state.index === 0, next],
      [next, state.index === steps.length - 1, prev],
    ]) {
      const focused = document.activeElement === button;
      button.disabled = off;
      if (off && focused) other.focus();
    }
  }

  const go = (delta) => {
    state.index = Math.min(steps.length - 1, Math.max(0, state.index + delta));
    render();
  };
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  toggle.addEventListener("change", () => {
    state.withCache = !toggle.checked;
    render();
  });
  mount.addEventListener("keydown", (event) => {
    if (event.target === toggle) return;
    if (event.key === "ArrowRight") go(1);
    else if (event.key === "ArrowLeft") go(-1);
    else return;
    event.preventDefault();
  });

  clear(mount).append(
    h("h2", { id: "kv-strip-title" }, tr("title")),
    h("p", { class: "kv-intro" }, tr("intro")),
    h(
      "div",
      { class: "kv-controls" },
      prev,
      next,
      status,
      h("label", { class: "kv-toggle" }, toggle, " ", tr("noCache")),
    ),
    h("div", { class: "kv-scroll" }, figure),
    live,
    work,
    h(
      "p",
      { class: "kv-work-far" },
      tr("workAt", { n: number(1000, language), cached: number(far.cached, language), uncached: number(far.uncached, language) }),
    ),
    h("p", { class: "kv-legend" }, tr("legend")),
  );
  mount.setAttribute("aria-labelledby", "kv-strip-title");
  render();
}
