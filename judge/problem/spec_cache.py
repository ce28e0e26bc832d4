"""Loaded problem specs kept on disk between runs of the command line.

Loading a problem reads problem.toml with `tomllib`, validates every field and hashes
every file of the folder for its version: with their imports, about a tenth of a
`judge run`. A learner runs the same problem again and again, so `judge` keeps each loaded
spec in a file of its own and loads it back while nothing it was made from has changed:

- the problem folder's files, each by path, inode, size and times (any write changes the
  ctime, which no tool sets back; judge.problem.problemset.folder_stamp), and
- the judge's own modules that build a spec (a new judge may read problem.toml differently).

Only the command line uses it (ProblemSet(cache=...)): a server holds its specs in memory
and never reads a file a user could have written. The folder is the user's own cache
($JUDGE_SPEC_CACHE, else $XDG_CACHE_HOME or ~/.cache, then practice-judge/specs), as
trusted as the problem folder whose cases.py `judge run` executes anyway; set
JUDGE_SPEC_CACHE to an empty string to keep none. A cache that cannot be read or written
is skipped, never an error: the spec is then loaded from its folder as without one.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from judge.problem.spec import ProblemSpec
from judge.user_cache import cache_folder, write_whole

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.problem.problemset import Stamp

FORMAT = 1  # raise when what a cache file holds changes shape
# The modules whose code decides what a folder loads as (their own stamps key every entry).
_BUILDERS = (
    "record.py",
    "messages.py",
    "problem/spec.py",
    "problem/limits.py",
    "problem/checkers.py",
    "problem/device.py",
    "problem/guide.py",
    "problem/speed_spec.py",
    "quiz/questions.py",
)
_JUDGE = Path(__file__).resolve().parents[1]


def default_folder() -> Path | None:
    """Where the command line keeps specs, or None where the user asked for none."""
    return cache_folder("JUDGE_SPEC_CACHE", "specs")


def _builders_stamp() -> tuple[tuple[str, int, int], ...]:
    found = []
    for name in _BUILDERS:
        st = os.stat(_JUDGE / name)
        found.append((name, st.st_size, st.st_mtime_ns))
    return tuple(found)


class SpecCache:
    """One file per problem folder under `folder`: (FORMAT, builders' stamp, the folder's
    absolute path, its stamp, the spec)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._builders = _builders_stamp()

    def _file(self, problem_folder: Path) -> Path:
        # The slug names the file; the folder's whole path is checked inside it, so two
        # checkouts with the same slug take turns, never mix.
        return self.folder / f"{problem_folder.name}.pickle"

    def get(self, problem_folder: Path, stamp: Stamp) -> ProblemSpec | None:
        """The spec stored for this folder as it is now, or None."""
        try:
            with open(self._file(problem_folder), "rb") as f:
                entry = pickle.load(f)
        except Exception:  # noqa: BLE001 - the cache only saves time: whatever is wrong
            # with a file (none yet, cut short, another judge's classes, garbage), the
            # folder itself is loaded instead, as without a cache.
            return None
        key = (FORMAT, self._builders, str(problem_folder.resolve()), stamp)
        if type(entry) is not tuple or len(entry) != 5 or entry[:4] != key:
            return None
        spec = entry[4]
        return spec if type(spec) is ProblemSpec else None

    def put(self, problem_folder: Path, stamp: Stamp, spec: ProblemSpec) -> None:
        """Store `spec` for the folder as it was stamped; silently nothing where the cache
        folder cannot be written."""
        entry = (FORMAT, self._builders, str(problem_folder.resolve()), stamp, spec)
        data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        write_whole(self._file(problem_folder), data)
