// Statement rendering: Markdown with $math$, where formulas are never read as Markdown.
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown } from "../src/statement.js";

test("inline math is typeset and its underscores are not emphasis", () => {
  const html = renderMarkdown("bytes $2 L H_{kv} d_{head}$ and *more*");
  assert.match(html, /class="katex"/);
  assert.doesNotMatch(html, /<em>kv/);
  assert.match(html, /<em>more<\/em>/);
});

test("display math becomes a block of its own", () => {
  const html = renderMarkdown("before\n\n$$\nx = \\frac{a}{b}\n$$\n\nafter");
  assert.match(html, /<div class="math-display">.*katex-display/s);
  assert.match(html, /<p>after<\/p>/);
});

test("prices are not math: a dollar followed by a space stays text", () => {
  const html = renderMarkdown("costs $5 and $ 6");
  assert.doesNotMatch(html, /katex/);
  assert.match(html, /costs \$5 and \$ 6/);
});

test("raw HTML in a statement is escaped, not rendered", () => {
  const html = renderMarkdown("<script>alert(1)</script>");
  assert.doesNotMatch(html, /<script>/);
  assert.match(html, /&lt;script&gt;/);
});

test("a bad formula shows an error mark instead of breaking the page", () => {
  const html = renderMarkdown("broken $\\frac{1}$ here");
  assert.match(html, /katex-error|katex/);
  assert.match(html, /here/);
});

test("a line break between Chinese characters leaves no space; next to Latin text it stays", () => {
  assert.equal(renderMarkdown("每个 token 占多少字节，\n决定了一张卡"), "<p>每个 token 占多少字节，决定了一张卡</p>\n");
  assert.equal(renderMarkdown("KV cache\n很大"), "<p>KV cache\n很大</p>\n");
});
