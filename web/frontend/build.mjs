// Builds everything the browser loads into web/static/dist/:
//   app.js + app.css   page logic and styles (esbuild bundle of src/app.js)
//   worker.js          the Pyodide Web Worker (esbuild bundle of src/worker.js)
//   embed.js + embed.css  a handbook page's exercises (the MkDocs plugin, handbook/): the
//                      same modules, and the platform's styles scoped to .practice-embed
//   pyodide/           Pyodide's runtime files, copied from the npm package
//   fonts/             KaTeX fonts referenced by app.css
//   judge.zip          the judge modules judge/browser/public_run.py imports, for the worker to unpack, and
//   problems/*.json    each problem's public bundle; both written by `python -m devtools.build_bundles`
// Nothing here is fetched from the network at run time: the page works offline.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const dist = join(root, "web", "static", "dist");
const modules = join(here, "node_modules");

// Only these Pyodide files are needed for a stdlib-only interpreter; the source maps,
// type declarations and HTML consoles stay out of the served tree.
const PYODIDE_FILES = [
  "pyodide.mjs",
  "pyodide.js",
  "pyodide.asm.mjs",
  "pyodide.asm.wasm",
  "python_stdlib.zip",
  "pyodide-lock.json",
];

// The judge's message catalog (judge/messages.py, the one source of every sentence a
// report says), built into app.js so a case's message_key/message_args render in the
// page's language (src/results.js).
function judgeMessages() {
  const python = process.env.PYTHON || "python3";
  return execFileSync(python, ["-m", "judge.messages"], { cwd: root, encoding: "utf-8" }).trim();
}

async function bundleScripts() {
  const common = {
    bundle: true,
    minify: true,
    sourcemap: true,
    target: ["chrome110", "firefox110", "safari16"],
    logLevel: "warning",
    legalComments: "linked",
  };
  await esbuild.build({
    ...common,
    entryPoints: { app: join(here, "src", "app.js") },
    define: { __JUDGE_MESSAGES__: judgeMessages() },
    outdir: dist,
    format: "esm",
    // The editor, Markdown and KaTeX load as a chunk after the worker has started.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
    assetNames: "fonts/[name]-[hash]",
  });
  await esbuild.build({
    ...common,
    entryPoints: { embed: join(here, "src", "embed.js") },
    define: { __JUDGE_MESSAGES__: judgeMessages() },
    outdir: dist,
    format: "esm",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    loader: { ".woff2": "file", ".woff": "file", ".ttf": "file", ".css": "empty" },
  });
  const pyodide = JSON.parse(readFileSync(join(modules, "pyodide", "package.json"), "utf-8"));
  await esbuild.build({
    ...common,
    entryPoints: { worker: join(here, "src", "worker.js") },
    define: { __PYODIDE_VERSION__: JSON.stringify(pyodide.version) },
    outdir: dist,
    format: "esm",
  });
}

// The platform's styles for the embeds, every rule scoped to .practice-embed so that a
// handbook's own theme is left alone (its variables set on the embed, not on :root), with
// KaTeX's and the embed's own layout beside them. The scope is the class twice: one step
// more specific than a theme's own rules for the same elements (mkdocs-material styles
// every <details> in a page as an admonition). Dark follows the page, not the system: a
// handbook whose page is light keeps a light embed (mkdocs-material's dark palette is
// [data-md-color-scheme=slate]; any other site may put .practice-dark on an ancestor).
// Keyframes cannot nest: kept at the top.
const EMBED_SCOPE = ".practice-embed.practice-embed";
const PAGE_IS_DARK = ':where([data-md-color-scheme="slate"], .practice-dark) &';

async function bundleEmbedStyles() {
  const source = ["styles.css", "kv_strip.css", "guidance.css"]
    .map((name) => readFileSync(join(here, "src", name), "utf-8"))
    .join("\n")
    .replace(/:root\b/g, "&")
    .replace(/@media\s*\(prefers-color-scheme:\s*dark\)/g, PAGE_IS_DARK);
  const keyframes = [];
  const rest = source.replace(/@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, (block) => {
    keyframes.push(block);
    return "";
  });
  const own = (name) => readFileSync(join(here, "src", name), "utf-8");
  const contents = [
    '@import "katex/dist/katex.min.css";',
    keyframes.join("\n"),
    `${EMBED_SCOPE} {\n${own("embed_reset.css")}\n}`,
    `${EMBED_SCOPE} {\n${rest}\n}`,
    own("embed.css"),
  ].join("\n");
  const scoped = join(here, "src", ".embed-scoped.css");
  writeFileSync(scoped, contents);
  try {
    await esbuild.build({
      entryPoints: { embed: scoped },
      bundle: true,
      minify: true,
      target: ["chrome110", "firefox110", "safari16"],
      logLevel: "warning",
      outdir: dist,
      loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
      assetNames: "fonts/[name]-[hash]",
    });
  } finally {
    rmSync(scoped, { force: true });
  }
}

function copyPyodide() {
  const target = join(dist, "pyodide");
  mkdirSync(target, { recursive: true });
  for (const name of PYODIDE_FILES) {
    copyFileSync(join(modules, "pyodide", name), join(target, name));
  }
}

function writeProblemBundles() {
  const python = process.env.PYTHON || "python3";
  // JUDGE_DIR / PROBLEMS_DIR point the build at other trees (tests build from fixtures).
  const args = ["-m", "devtools.build_bundles", "--out", dist];
  if (process.env.JUDGE_DIR) args.push("--judge", process.env.JUDGE_DIR);
  if (process.env.PROBLEMS_DIR) args.push("--problems", process.env.PROBLEMS_DIR);
  const out = execFileSync(
    python,
    args,
    { cwd: root, encoding: "utf-8", stdio: ["ignore", "pipe", "inherit"] },
  );
  return out.trim();
}

async function main() {
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  await bundleScripts();
  await bundleEmbedStyles();
  copyPyodide();
  const bundles = writeProblemBundles();
  console.log(`built ${dist}: app, worker, pyodide; ${bundles}`);
}

main().catch((error) => {
  console.error(error.message || error);
  process.exit(1);
});
