// Renders a problem statement: Markdown (markdown-it, raw HTML off) with $inline$ and
// $$display$$ math typeset by KaTeX. Math is tokenised before Markdown sees it, so
// underscores and asterisks inside formulas are never read as emphasis.
import katex from "katex";
import MarkdownIt from "markdown-it";

function typeset(tex, displayMode) {
  return katex.renderToString(tex, { displayMode, throwOnError: false, output: "html" });
}

// Inline rule: $...$ on one line, not empty, not starting or ending with a space
// (so "costs $5 and $6" stays text), and \$ escapes a literal dollar.
function inlineMath(state, silent) {
  const start = state.pos;
  const src = state.src;
  if (src[start] !== "$" || src[start + 1] === "$") return false;
  let end = start + 1;
  while (end < state.posMax) {
    if (src[end] === "\\") {
      end += 2;
      continue;
    }
    if (src[end] === "$") break;
    end += 1;
  }
  if (end >= state.posMax) return false;
  const tex = src.slice(start + 1, end);
  if (!tex || /^\s|\s$/.test(tex)) return false;
  if (!silent) {
    const token = state.push("math_inline", "", 0);
    token.content = tex;
  }
  state.pos = end + 1;
  return true;
}

// Block rule: a paragraph that opens with $$ and runs to the line that closes it.
function blockMath(state, startLine, endLine, silent) {
  const lineText = (n) => state.src.slice(state.bMarks[n] + state.tShift[n], state.eMarks[n]);
  const first = lineText(startLine);
  if (!first.startsWith("$$")) return false;
  if (silent) return true;
  let body = first.slice(2);
  let line = startLine;
  let closed = body.trimEnd().endsWith("$$");
  if (closed) body = body.trimEnd().slice(0, -2);
  while (!closed && line + 1 < endLine) {
    line += 1;
    const text = lineText(line);
    if (text.trimEnd().endsWith("$$")) {
      body += `\n${text.trimEnd().slice(0, -2)}`;
      closed = true;
    } else {
      body += `\n${text}`;
    }
  }
  state.line = line + 1;
  const token = state.push("math_block", "", 0);
  token.content = body.trim();
  token.map = [startLine, state.line];
  return true;
}

function mathPlugin(md) {
  md.inline.ruler.after("escape", "math_inline", inlineMath);
  md.block.ruler.before("fence", "math_block", blockMath, {
    alt: ["paragraph", "reference", "blockquote", "list"],
  });
  md.renderer.rules.math_inline = (tokens, idx) => typeset(tokens[idx].content, false);
  md.renderer.rules.math_block = (tokens, idx) =>
    `<div class="math-display">${typeset(tokens[idx].content, true)}</div>\n`;
}

// A line break between two Chinese characters is no word boundary: rendered as "\n" it
// would show as a space (web/content/markdown.py does the same on the server).
const CJK = /[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/;

function cjkSoftbreak(md) {
  md.renderer.rules.softbreak = (tokens, idx) => {
    const before = idx > 0 ? tokens[idx - 1].content.slice(-1) : "";
    const after = idx + 1 < tokens.length ? tokens[idx + 1].content.slice(0, 1) : "";
    return CJK.test(before) && CJK.test(after) ? "" : "\n";
  };
}

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false })
  .use(mathPlugin)
  .use(cjkSoftbreak);

export function renderMarkdown(source) {
  return markdown.render(source);
}

// One line of Markdown without its paragraph (a quiz option beside its checkbox).
export function renderInline(source) {
  return markdown.renderInline(source);
}

// Typesets math the server left verbatim in its own statement HTML:
// <span class="math inline">$x$</span> and <span class="math display">$$x$$</span>.
export function typesetMath(root) {
  for (const span of root.querySelectorAll("span.math")) {
    if (span.dataset.typeset) continue;
    const display = span.classList.contains("display");
    const tex = span.textContent.replace(display ? /^\$\$|\$\$$/g : /^\$|\$$/g, "");
    span.innerHTML = typeset(tex, display);
    span.dataset.typeset = "1";
  }
}
