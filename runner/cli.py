"""`judge runner ...`: the runner's own commands (the `judge` entry point, practice_judge.py,
delegates here)."""

from __future__ import annotations

from collections.abc import Sequence

from runner import doctor

COMMANDS = {"doctor": doctor.main}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(argv or [])
    if not args or args[0] not in COMMANDS:
        names = ", ".join(COMMANDS)
        print(f"usage: judge runner {{{names}}} [options]")
        return 0 if args[:1] in ([], ["-h"], ["--help"]) else 2
    return COMMANDS[args[0]](args[1:])
