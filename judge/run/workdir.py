"""A private, empty working folder for one local run, removed afterwards.

Not tempfile.TemporaryDirectory: that module pulls in shutil, random and lzma, a cost
every `judge run` would pay; shutil is imported only when the child left files behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType


class WorkDir:
    def __init__(self) -> None:
        base = os.environ.get("TMPDIR") or "/tmp"
        for _ in range(100):
            candidate = Path(base) / f"judge-{os.getpid()}-{os.urandom(6).hex()}"
            try:
                candidate.mkdir(mode=0o700)
            except FileExistsError:
                continue
            self.path = candidate
            return
        raise OSError(f"cannot create a working folder in {base}")

    def __enter__(self) -> WorkDir:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.remove()

    def remove(self) -> None:
        try:
            self.path.rmdir()
        except FileNotFoundError:
            pass
        except OSError:  # the child left files: remove them without following links
            import shutil

            shutil.rmtree(self.path, ignore_errors=True)
