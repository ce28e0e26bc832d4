"""All problems under one folder, in chapter order."""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import SpecError, UnknownProblem
from judge.problem.spec import ProblemSpec, load_problem

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "problems"


def default_root() -> Path:
    """$JUDGE_PROBLEMS if set, else the problems/ folder next to the judge package."""
    env = os.environ.get("JUDGE_PROBLEMS")
    return Path(env) if env else DEFAULT_ROOT


Stamp = tuple[tuple[str, int, int, int, int], ...]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.problem.spec_cache import SpecCache


class ProblemSet:
    """`cache`: specs kept on disk between processes (the command line's; a server's
    ProblemSet has none and keeps its specs in memory)."""

    def __init__(self, root: Path | None = None, cache: SpecCache | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._cache = cache
        if not self.root.is_dir():
            raise SpecError(str(self.root), None, "problems folder not found")
        # Specs already loaded, each with the stamp of its folder's files when it was: a
        # server asks for a problem on every job, and loading one reads and hashes them all.
        self._loaded: dict[str, tuple[Stamp, ProblemSpec]] = {}

    def slugs(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / "problem.toml").is_file())

    def get(self, slug: str) -> ProblemSpec:
        """Load one problem; UnknownProblem suggests the closest slug."""
        if slug not in self.slugs():
            import difflib

            close = difflib.get_close_matches(slug, self.slugs(), n=1, cutoff=0.4)
            raise UnknownProblem(slug, close[0] if close else None)
        folder = self.root / slug
        stamp = folder_stamp(folder)
        known = self._loaded.get(slug)
        if known is not None and known[0] == stamp:
            return known[1]
        spec = self._cache.get(folder, stamp) if self._cache is not None else None
        if spec is None:
            spec = load_problem(folder)
            if self._cache is not None:
                self._cache.put(folder, stamp, spec)
        self._loaded[slug] = (stamp, spec)
        return spec

    def all(self) -> list[ProblemSpec]:
        """Every problem, sorted by chapter, then order, then slug."""
        problems = [load_problem(self.root / slug) for slug in self.slugs()]
        return sorted(problems, key=lambda p: (p.chapter, p.order, p.slug))


def folder_stamp(folder: Path) -> Stamp:
    """Every file's path, inode, size and times: any write changes the ctime, which no tool
    can set back, so an edited problem is loaded again."""
    found = []
    for path in folder.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        st = path.stat()
        found.append((path.as_posix(), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(sorted(found))
