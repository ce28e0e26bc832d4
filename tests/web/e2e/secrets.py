"""What must never reach a browser, as text to search for.

Kept independent of web/build_bundles.py (which guards the build with a similar rule)
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
    """Lines of reference.py (a quiz's answers.toml) and solutions/** (.py; a quiz's .json
    answer sheets) whose text no public file of the problem contains (the starter may
    carry a scaffold line with a comment added)."""
    public = "\n".join(
        (problem / name).read_text(encoding="utf-8")
        for name in PUBLIC_FILES
        if (problem / name).is_file()
    )
    found: dict[str, str] = {}
    secret = [problem / "reference.py", problem / "answers.toml"]
    secret += sorted(problem.glob("solutions/**/*.py")) + sorted(
        problem.glob("solutions/**/*.json")
    )
    for path in (p for p in secret if p.is_file()):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if text.startswith(HEADER_PREFIXES):
                continue
            if len(text) >= MIN_LINE and text not in public:
                found.setdefault(text, f"{problem.name}/{path.relative_to(problem)}")
    return found


def all_secret_lines(problems: Path) -> dict[str, str]:
    """Secret lines of every problem, less those another problem publishes: a line
    like `self.block_size = block_size` in one reference may be in another's starter."""
    public = "\n".join(
        (problem / name).read_text(encoding="utf-8")
        for problem in problem_dirs(problems)
        for name in PUBLIC_FILES
        if (problem / name).is_file()
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
    if name.endswith(".json"):
        try:
            parts.extend(_json_strings(json.loads(data)))
        except ValueError:
            pass
    return "\n".join(parts)


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{origin}: {line!r}" for line, origin in secrets.items() if line in text]
