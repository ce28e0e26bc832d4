"""Modules a problem withholds from the submission: the parts of mini_llm it asks the learner
to write (problem.toml `[submission] withheld`), refused with a message that says so.

Two sides. In the child (untrusted; judge/run/child.py) `install` puts a finder first on
`sys.meta_path` that refuses those modules with `WithheldModule`. In the parent,
`message_for` turns the refusal back into the catalog's sentence, naming the part.

The finder is what gives the message; it is not the wall. A submission can take the finder
off `sys.meta_path`, so in the server's sandbox the withheld modules are also never loaded
into the job and their files are not visible there (runner/worker.py): nothing is left to
import, read or find through `gc`. A local `judge run` has only the finder.
"""

from __future__ import annotations

import re
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.messages import Message
# The refusal's text, which the parent reads back (an exception crosses as its type's name and
# its text): the module's name is all it carries.
_TEXT = "No module named {name!r} in this problem: it is the part you are asked to write"
_TEXT_RE = re.compile(
    r"(?:WithheldModule: )?No module named '([A-Za-z_][A-Za-z0-9_.]{0,99})' in this problem: .*"
)
PART_PREFIX = "part."  # the catalog names each part a problem may withhold: part.<module>


class WithheldModule(ModuleNotFoundError):
    """Importing a module the problem withholds (child side)."""


class WithheldFinder:
    """First on sys.meta_path: refuses the withheld modules and everything below them."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self.modules = modules

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                raise WithheldModule(_TEXT.format(name=module), name=module)
        return None  # not ours: the next finder looks


def install(modules: list[str]) -> None:
    """Refuse `modules` in this process from now on (called before the driver loads)."""
    if modules:
        sys.meta_path.insert(0, WithheldFinder(tuple(modules)))


# The parent's side. judge.messages is imported in these functions only: the child imports
# this module for the finder and must not pay for the catalog at every start.


def is_part(module: str) -> bool:
    """Whether the catalog names `module` as a part a problem may withhold."""
    from judge.messages import CATALOG

    return PART_PREFIX + module in CATALOG


def withheld_name(text: str) -> str | None:
    """The module a refusal's text names, or None for any other text."""
    match = _TEXT_RE.fullmatch(text)
    return match.group(1) if match else None


def message_for(module: str) -> Message:
    """The sentence a learner reads: <module> is not here, since its <part> would do part of
    the exercise (batched-decode withholds the paged cache, which is not its exercise but
    would do its padding and masking)."""
    from judge.messages import say

    part = say(PART_PREFIX + module) if is_part(module) else say("part.unknown")
    return say("load.withheld", part=part, module=module)
