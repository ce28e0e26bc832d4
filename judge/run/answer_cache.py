"""A torch problem's public cases and the reference's answers, kept on disk between runs
of the command line.

A `judge run` of a problem that loads checkpoints spends most of its wait before the
learner's code runs a single case: the parent loads the models, draws the generated cases
(some run the model to keep only prompts without a near tie) and runs reference.py on
every case. batched-decode: 5.8 s of a 9.6 s run, on two cores. Without `--seed` these are
the same on every run, so the command line keeps them in a file of their own and reads them
back while nothing they were computed from has changed:

- the problem folder (its path and its content's version: cases.py, reference.py, the
  spec);
- every module of the process that computed them, outside the standard library: each of
  the judge's and the library's files by its stamp, and each installed package (torch) by
  its top module's stamp, which an upgrade rewrites;
- the checkpoint files, by their stamps as they were before the answers were computed
  (a checkpoint rewritten meanwhile is a change on the next run): which files those are is
  known above the core (the `checkpoints` callable the `judge` command passes in,
  judge/commands/cli.py);
- this Python's version, and FORMAT.

A stamp is a file's inode, size, modification and change times: any write changes the
change time, which no tool sets back. Only the public seed is kept, and only for the torch
tier's problems that name checkpoints (the others build their cases in milliseconds once
torch is imported). The folder is the user's own cache ($JUDGE_ANSWER_CACHE, else
$XDG_CACHE_HOME or ~/.cache, then practice-judge/answers), as trusted as the problem folder
whose cases.py `judge run` executes anyway; set JUDGE_ANSWER_CACHE to an empty string to
keep none. A file that cannot be read, or that is stale, is ignored and written again; one
that cannot be written is skipped, never an error.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from judge.problem.cases import Case
from judge.problem.spec import ProblemSpec
from judge.user_cache import cache_folder, write_whole

FORMAT = 2  # raise when what a cache file holds changes shape
Stamp = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns
Stamps = tuple[tuple[str, Stamp], ...]
Checkpoints = Callable[[], Sequence[Path]]  # every checkpoint file a problem may load

_STDLIB = os.path.dirname(os.__file__)
_INSTALLED = ("site-packages", "dist-packages")


def default_folder() -> Path | None:
    """Where the command line keeps answers, or None where the user asked for none."""
    return cache_folder("JUDGE_ANSWER_CACHE", "answers")


def applies_to(problem: ProblemSpec, seed: int | None) -> bool:
    """Whether a run of `problem` on `seed` keeps its answers: the public seed of a problem
    whose cases load checkpoints."""
    return seed is None and problem.tier == "torch" and bool(problem.models)


class AnswerCache:
    """One file per problem folder under `folder`: (FORMAT, Python's version, the folder's
    absolute path, the problem's version, the modules' stamps, the checkpoints' stamps,
    the cases, the expected observations)."""

    def __init__(self, folder: Path, checkpoints: Checkpoints) -> None:
        self.folder = folder
        self._checkpoints = checkpoints
        # The checkpoints' stamps each `get` saw, by problem folder: what a `put` after it
        # computed its answers from.
        self._seen: dict[Path, Stamps] = {}

    def _file(self, problem: ProblemSpec) -> Path:
        # The slug names the file; the folder's whole path is checked inside it, so two
        # checkouts with the same slug take turns, never mix.
        return self.folder / f"{problem.path.name}.pickle"

    def _header(self, problem: ProblemSpec) -> tuple[object, ...]:
        return (FORMAT, sys.version, str(problem.path.resolve()), problem.version)

    def get(self, problem: ProblemSpec) -> tuple[list[Case], dict[str, object]] | None:
        """The public cases and their expected observations, kept for the problem as it is
        now and computed by the code and checkpoints there are now; else None."""
        try:
            checkpoints = self._seen[problem.path] = self._checkpoint_stamps()
            with open(self._file(problem), "rb") as f:
                entry = pickle.load(f)
        except Exception:  # noqa: BLE001 - the cache only saves time: whatever is wrong
            # with a file (none yet, cut short, another judge's classes, garbage) or with a
            # checkpoint (gone while it was stamped), the answers are computed instead, as
            # without a cache.
            return None
        try:
            return self._valid(problem, entry, checkpoints)
        except Exception:  # noqa: BLE001 - a file of the right header and a wrong shape
            # below it (another judge's, or one written by hand): computed again, as above.
            return None

    def _valid(
        self, problem: ProblemSpec, entry: object, checkpoints: Stamps
    ) -> tuple[list[Case], dict[str, object]] | None:
        """The entry's cases and answers where it was made for the problem as it is now, by
        the code there is now and the `checkpoints` there are; else None."""
        if type(entry) is not tuple or len(entry) != 8 or entry[:4] != self._header(problem):
            return None
        modules, kept_checkpoints, cases, expected = entry[4:]
        if kept_checkpoints != checkpoints or type(modules) is not tuple or not _restamp(modules):
            return None
        if type(cases) is not list or type(expected) is not dict:
            return None
        if not all(type(c) is Case for c in cases):
            return None
        return cases, expected

    def put(self, problem: ProblemSpec, cases: list[Case], expected: dict[str, object]) -> None:
        """Keep the answers just computed in this process, stamped with what computed them
        (the checkpoints as the `get` before saw them); silently nothing where the cache
        folder cannot be written or the answers cannot be kept."""
        checkpoints = self._seen.pop(problem.path, None)
        try:
            if checkpoints is None:
                checkpoints = self._checkpoint_stamps()
            entry = (*self._header(problem), _module_stamps(), checkpoints, cases, expected)
            data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - e.g. a value pickle cannot keep: nothing kept
            return
        write_whole(self._file(problem), data)

    def _checkpoint_stamps(self) -> Stamps:
        return tuple((str(p), _stamp(str(p))) for p in sorted(self._checkpoints()))


def _restamp(modules: Stamps) -> bool:
    """Whether every module file an entry depends on still has its stamp."""
    for path, stamp in modules:
        try:
            if _stamp(path) != stamp:
                return False
        except OSError:
            return False
    return True


def _stamp(path: str) -> Stamp:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _module_stamps() -> Stamps:
    """The stamps of the code this process runs, outside the standard library: each file of
    ours, and each installed package by its top module's file."""
    files: set[str] = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue  # built in, or a namespace package (its modules have files of their own)
        path = os.path.abspath(path)
        inside_stdlib = path.startswith(_STDLIB + os.sep)
        installed = any(f"{os.sep}{part}{os.sep}" in path for part in _INSTALLED)
        if installed:
            top = sys.modules.get(name.partition(".")[0])
            path = getattr(top, "__file__", None) or path
        elif inside_stdlib:
            continue
        files.add(path)
    return tuple((path, _stamp(path)) for path in sorted(files) if os.path.isfile(path))
