"""Modules a problem withholds from the submission: every part of mini_llm's job library
that does what the exercise practises, refused with a message that says so.

What an exercise practises is the problem's own statement of fact (problem.toml
`[submission] practises`, from PRACTISED_PARTS); which modules do each part, directly or
as a helper, is LIBRARY_PARTS below. A problem withholds every module whose parts meet its
own: derived, never a hand list, so a module that does the exercise (the paged cache for
batched-decode's ragged rows, the runner's pool for paged-attention's gather) cannot be
forgotten. tests/runner/test_withheld_parts.py holds every module of the job library to the
table, and the table to each module's own imports.

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

# What an exercise may practise (problem.toml `[submission] practises`).
PRACTISED_PARTS = {
    "kv-cache": "keys and values kept across steps and appended to, instead of recomputed",
    "attention": "attending over cached keys and values: RoPE, the mask, grouped heads",
    "decoding-loop": "greedy decoding, one new token per step",
    "paged-kv": "keys and values in a pool of fixed-size blocks, read and written through "
    "block tables",
    "ragged-batch": "sequences of different lengths decoded in one batch, each with its own length",
}
# Which parts each module of the job library does, directly or as a helper (a module that
# imports another does that one's parts too). Every module of runner/torch_library.py's
# JOB_LIBRARY has a row; an empty row says the module does no exercise's part.
LIBRARY_PARTS: dict[str, tuple[str, ...]] = {
    "mini_llm.attention": ("attention",),
    "mini_llm.kv_cache": ("kv-cache",),
    "mini_llm.paged_cache": ("kv-cache", "paged-kv", "ragged-batch"),
    "mini_llm.generation": ("decoding-loop", "kv-cache", "ragged-batch"),
    "mini_llm.pool_runner": ("kv-cache", "paged-kv", "ragged-batch"),
    "mini_llm.serving_trace": ("decoding-loop", "kv-cache", "paged-kv", "ragged-batch"),
    "mini_llm.sampling": (),
    "mini_llm.chunk": (),
}
# Why a module that does none of a problem's parts is left in its job: what it is for.
LIBRARY_ROLES = {
    "mini_llm.attention": "the attention layer the model's forward pass runs",
    "mini_llm.kv_cache": "a contiguous KV cache a learner's loop may keep",
    "mini_llm.paged_cache": "a KV cache in blocks of a pool, through block tables",
    "mini_llm.generation": "greedy and sampled generation through a KV cache",
    "mini_llm.pool_runner": "a model computing over a pool of KV blocks (the capstone's runner)",
    "mini_llm.serving_trace": "the capstone's traces and their driver",
    "mini_llm.sampling": "picks the next token from logits (greedy is one argmax)",
    "mini_llm.chunk": "the values an engine hands the capstone's runner (a chunk, its record)",
}


def withheld_for(practises: tuple[str, ...]) -> tuple[str, ...]:
    """Every module of the job library that does a part an exercise practises, in the
    table's order."""
    wanted = set(practises)
    return tuple(m for m, parts in LIBRARY_PARTS.items() if wanted.intersection(parts))


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
