"""What must never reach a browser, as text to search for.

Kept independent of devtools/build_bundles.py (which guards the build with a similar rule)
so that a bug there cannot hide itself from the tests.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

PUBLIC_FILES = (
    "starter.py",
    "cases.py",
    "problem.toml",
    "statement.zh.md",
    "statement.en.md",
    "questions.toml",  # a quiz's questions
)
MIN_LINE = 16  # shorter lines ("return total") are too common to prove anything
# A wrong solution's self-check header (`# expect: WA at case small`, `# differs: 2 lines`)
# is the documented format, quoted in the judge's own sources; it tells nothing secret.
HEADER_PREFIXES = ("# expect:", "# differs:")


def problem_dirs(problems: Path) -> list[Path]:
    return sorted(p for p in problems.iterdir() if (p / "problem.toml").is_file())


def secret_lines(problem: Path) -> dict[str, str]:
    """Lines of reference.py (a quiz's answers.toml) and solutions/**/*.py whose text no
    public file of the problem contains (the starter may carry a scaffold line with a
    comment added). A quiz's wrong answer sheets are left out: they are made of the
    public question and option ids, and a wrong answer tells nothing."""
    public = "\n".join(
        (problem / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (problem / name).is_file()
    )
    found: dict[str, str] = {}
    secret = [problem / "reference.py", problem / "answers.toml"]
    secret += sorted(problem.glob("solutions/**/*.py"))
    for path in (p for p in secret if p.is_file()):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if text.startswith(HEADER_PREFIXES):
                continue
            if len(text) >= MIN_LINE and text not in public:
                found.setdefault(text, f"{problem.name}/{path.relative_to(problem)}")
    return found


def all_secret_lines(problems: Path) -> dict[str, str]:
    """Secret lines of every problem, less those another problem or the judge's own
    sources publish: a line like `self.block_size = block_size` in one reference may be
    in another's starter, `from collections.abc import Iterator` in judge/ (judge.zip)."""
    judge_sources = sorted((problems.parent / "judge").rglob("*.py"))
    public = "\n".join(
        [
            *(
                (problem / name).read_text(encoding="utf-8")
                for problem in problem_dirs(problems)
                for name in PUBLIC_FILES
                if (problem / name).is_file()
            ),
            *(path.read_text(encoding="utf-8") for path in judge_sources),
        ]
    )
    lines: dict[str, str] = {}
    for problem in problem_dirs(problems):
        lines.update((k, v) for k, v in secret_lines(problem).items() if k not in public)
    return lines


def _json_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_json_strings(v)]]
    if isinstance(value, list):
        return [s for item in value for s in _json_strings(item)]
    return []


def readable_text(name: str, data: bytes) -> str:
    """The text a file carries: raw, plus decoded JSON strings (escapes undone) and,
    for a zip, every member's name and text."""
    parts = [data.decode("utf-8", errors="replace")]
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                parts.append(member)
                parts.append(readable_text(member, archive.read(member)))
    if name.endswith(".map"):
        return "\n".join(_our_sources(data))
    if name.endswith(".json"):
        try:
            parts.extend(_json_strings(json.loads(data)))
        except ValueError:
            pass
    return "\n".join(parts)


def _our_sources(data: bytes) -> list[str]:
    """A source map's sources that are ours: a third-party package's code (CodeMirror's
    `node = node.parent`) may share a line with a reference by chance, never by a leak."""
    try:
        mapping = json.loads(data)
    except ValueError:
        return [data.decode("utf-8", errors="replace")]
    sources = mapping.get("sources", []) if isinstance(mapping, dict) else []
    contents = mapping.get("sourcesContent", []) if isinstance(mapping, dict) else []
    return [
        str(text)
        for source, text in zip(sources, contents, strict=False)
        if "node_modules" not in str(source)
    ]


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{origin}: {line!r}" for line, origin in secrets.items() if line in text]


MIN_ANSWER = 8  # an answer key's value ("p + n - 1"); "k" or "causal" prove nothing
EDITORIALS = ("editorial.zh.md", "editorial.en.md")


def answer_key_text(problem: Path) -> dict[str, str]:
    """What a problem keeps for the server alone, as text: every string of answers.toml
    (an answer, an explanation, line by line), every line of the editorials, and the
    hidden points an expression question is checked at, less what the problem's public
    files say. Unlike a reference line, none of it may be in any served file, the judge's
    own sources included (a docstring of judge/quiz/expression.py once quoted an answer)."""
    import tomllib

    public = "\n".join(
        (problem / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (problem / name).is_file()
    )
    found: dict[str, str] = {}
    key = problem / "answers.toml"
    if key.is_file():
        data = tomllib.loads(key.read_text(encoding="utf-8"))
        for value in _json_strings(data):
            parts = [value.strip(), *(line.strip() for line in value.splitlines())]
            for text in parts:
                long_enough = len(text) >= (MIN_ANSWER if "\n" not in value else MIN_LINE)
                if long_enough and text not in public:
                    found.setdefault(text, f"{problem.name}/answers.toml")
        for question in data.values():
            points = question.get("points", []) if isinstance(question, dict) else []
            for point in points:
                text = json.dumps(point, sort_keys=True, ensure_ascii=False)
                if text not in public:
                    found.setdefault(text, f"{problem.name}/answers.toml (a hidden point)")
    for name in EDITORIALS:
        path = problem / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if len(text) >= MIN_LINE and text not in public:
                found.setdefault(text, f"{problem.name}/{name}")
    return found


HIDDEN_SEEDS = (1, 2, 3)
MIN_ARGS = 24  # a case's arguments as JSON; shorter ones ({"n": 1}) recur by chance


def hidden_case_text(problem: Path) -> dict[str, str]:
    """The arguments of a browser-tier code problem's hidden cases, as the bundle would
    write them, for a few seeds other than the public one (those that the public seed
    draws too are public)."""
    from judge.problem.cases import PUBLIC_SEED, build_cases
    from judge.problem.spec import load_problem

    spec = load_problem(problem)
    if spec.tier != "browser" or spec.quiz is not None:
        return {}

    def shown(args: object) -> str:
        return json.dumps(args, sort_keys=True, ensure_ascii=False)

    public = {shown(c.args) for c in build_cases(spec, PUBLIC_SEED)}
    found: dict[str, str] = {}
    for seed in HIDDEN_SEEDS:
        for case in build_cases(spec, seed):
            text = shown(case.args)
            if len(text) >= MIN_ARGS and text not in public:
                found.setdefault(text, f"{problem.name}: hidden case {case.name} (seed {seed})")
    return found
