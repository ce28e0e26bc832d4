"""The reference's answers, and the cases they answer, computed once per test run and shared
by every test and pytest-xdist worker that asks for the same ones (issue 34: a torch
problem's reference on one seed costs 3-10 s, building its cases for a seed runs its model
too, 1-7 s, and a dozen tests judge the same problem on the same seed).

Installed by tests/conftest.py in place of `judge.run.judge_source.expected_observations`
and of `build_cases` (judge/problem/cases.py, and where the judge imported it by name)
for the tests that judge the real problem set outside a server: the runner's, the problems'
and the judge's own. Never installed for tests/web or tests/cluster: a server computes its
answers and builds its cases itself (its runner calls `run_reference` and
runner/refcache.py's own `build_cases`, never a memoised name), and so does `judge check`'s
determinism check, whose second run must be a run. A web test's own code may still ask
`built_cases` for cases it only reads (how many timed repetitions a problem has).

An entry is a file under build/answer-cache/, named by the hash of everything its answers
depend on: the problem's folder (every file), the judge's and mini_llm's source, the torch
version, the checkpoints' files (names, sizes, times), and the cases themselves (answers)
or the seed (cases). A clean
clone (as CI runs) starts empty; `rm -rf build/answer-cache` empties it by hand, and
TEST_ANSWER_CACHE=off turns it off.
"""

from __future__ import annotations

import copyreg
import hashlib
import io
import json
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FOLDER = REPO / "build" / "answer-cache"
FORMAT = b"answer-cache/1"
Compute = Callable[..., dict[str, object]]
Build = Callable[[Any, "int | None"], list[Any]]


def enabled() -> bool:
    return os.environ.get("TEST_ANSWER_CACHE", "on") != "off"


class AnswerCache:
    """`wrap(compute)`: `compute` memoised on disk for the real set's torch problems (a
    browser problem's answers cost milliseconds: not worth a file)."""

    def __init__(self, folder: Path = FOLDER, problems: Path = REPO / "problems") -> None:
        self.folder, self.problems = folder, problems.resolve()
        self.hits = self.misses = 0
        self._code: bytes | None = None

    def wrap(self, compute: Compute) -> Compute:
        def memoised(problem: Any, cases: list[Any], before_case: Any = None) -> dict[str, object]:
            if before_case is not None or not self._cacheable(problem):
                return compute(problem, cases, before_case)
            key = self._key(problem, cases)
            return self._kept(key, dict, lambda: compute(problem, cases, None))  # type: ignore[no-any-return]

        return memoised

    def wrap_build(self, build: Build) -> Build:
        """`build(problem, seed)` memoised the same way: the cases of a seed (the public seed
        when None, as build_cases reads it)."""

        def memoised(problem: Any, seed: int | None) -> list[Any]:
            if not self._cacheable(problem):
                return build(problem, seed)
            from judge.problem.cases import PUBLIC_SEED

            drawn = PUBLIC_SEED if seed is None else seed
            digest = self._digest(problem)
            digest.update(f"cases:{drawn}".encode())
            return self._kept(digest.hexdigest(), list, lambda: build(problem, seed))  # type: ignore[no-any-return]

        return memoised

    def _kept(self, key: str, kind: type, make: Callable[[], object]) -> object:
        """The entry `key` if it holds a `kind` (a torn or foreign file does not), else
        `make()`, written there for the next caller."""
        path = self.folder / f"{key}.pickle"
        found = self._read(path)
        if isinstance(found, kind):
            self.hits += 1
            return found
        self.misses += 1
        value = make()
        self._write(path, value)
        return value

    def _cacheable(self, problem: Any) -> bool:
        return problem.tier == "torch" and Path(problem.path).resolve().parent == self.problems

    def _key(self, problem: Any, cases: list[Any]) -> str:
        from judge.wire.codec import encode
        from judge.wire.tensor import TensorData

        digest = self._digest(problem)
        tensors: list[TensorData] = []
        shown = encode([[case.name, case.args] for case in cases], tensors)
        digest.update(json.dumps(shown, sort_keys=True).encode())
        for tensor in tensors:
            digest.update(f"{tensor.dtype}{tensor.shape}".encode())
            digest.update(tensor.data)
        return digest.hexdigest()

    def _digest(self, problem: Any) -> Any:
        """Everything a problem's cases and answers depend on but the seed or the cases."""
        digest = hashlib.sha256(FORMAT)
        digest.update(self._code_digest())
        digest.update(_folder_digest(Path(problem.path)))
        digest.update(_models_stamp())
        return digest

    def _code_digest(self) -> bytes:
        if self._code is None:
            import torch

            digest = hashlib.sha256(torch.__version__.encode())
            for package in ("judge", "mini_llm"):
                for path in sorted((REPO / package).rglob("*.py")):
                    digest.update(path.relative_to(REPO).as_posix().encode())
                    digest.update(path.read_bytes())
            self._code = digest.digest()
        return self._code

    def _read(self, path: Path) -> Any:
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        try:
            value = pickle.loads(blob)
        except Exception:  # noqa: BLE001 - a torn or foreign file: compute again
            return None
        return value

    def _write(self, path: Path, answers: object) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = _dispatch_table()
        pickler.dump(answers)
        # Another worker may write the same entry at once: each writes its own file and
        # renames it into place, so a reader sees one whole file or none.
        fd, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(buffer.getvalue())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _dispatch_table() -> dict[type, Any]:
    """TensorData refuses attribute writes, so it pickles through its constructor."""
    from judge.wire.tensor import TensorData

    table = dict(copyreg.dispatch_table)
    table[TensorData] = lambda t: (TensorData, (t.dtype, t.shape, t.data))
    return table


def _folder_digest(folder: Path) -> bytes:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(folder).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.digest()


def _models_stamp() -> bytes:
    """The checkpoints by name, size and time: reading their weights would cost more than
    most of the answers they key."""
    from mini_llm.zoo import models_root

    root = models_root()
    digest = hashlib.sha256(str(root.resolve()).encode())
    if root.is_dir():
        for path in sorted(root.rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(
                    f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}".encode()
                )
    return digest.digest()


_SHARED: AnswerCache | None = None


def built_cases(problem: Any, seed: int | None) -> list[Any]:
    """`build_cases(problem, seed)` through the suite's cache, for a test's own use where the
    judge's names are not replaced (tests/web: a server there builds its cases itself)."""
    global _SHARED
    from judge.problem.cases import build_cases

    if not enabled():
        return build_cases(problem, seed)
    if _SHARED is None:
        _SHARED = AnswerCache()
    return _SHARED.wrap_build(build_cases)(problem, seed)
