"""All problems under one folder, in chapter order."""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import SpecError, UnknownProblem
from judge.spec import ProblemSpec, load_problem

DEFAULT_ROOT = Path(__file__).resolve().parent.parent / "problems"


def default_root() -> Path:
    """$JUDGE_PROBLEMS if set, else the problems/ folder next to the judge package."""
    env = os.environ.get("JUDGE_PROBLEMS")
    return Path(env) if env else DEFAULT_ROOT


class ProblemSet:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        if not self.root.is_dir():
            raise SpecError(str(self.root), None, "problems folder not found")

    def slugs(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / "problem.toml").is_file())

    def get(self, slug: str) -> ProblemSpec:
        """Load one problem; UnknownProblem suggests the closest slug."""
        if slug not in self.slugs():
            import difflib

            close = difflib.get_close_matches(slug, self.slugs(), n=1, cutoff=0.4)
            raise UnknownProblem(slug, close[0] if close else None)
        return load_problem(self.root / slug)

    def all(self) -> list[ProblemSpec]:
        """Every problem, sorted by chapter, then order, then slug."""
        problems = [load_problem(self.root / slug) for slug in self.slugs()]
        return sorted(problems, key=lambda p: (p.chapter, p.order, p.slug))
