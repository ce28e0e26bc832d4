"""Bars for pools whose states hold counts, not block ids, and for a per-token size: as data
for the page's picture and as text art for `judge run`.

The scheduler's state says how many blocks are free and which requests run or wait;
fragmentation's records say how many token slots each allocator uses, wastes inside its
reservations or blocks, and leaves free; kv-bytes-per-token's answer is one number built
from the config. Each becomes rows of parts (a part: a name and a size), expected beside
got, so one picture draws all three. A trace keeps the steps up to the first that differs,
as the pool picture does, so the learner can step back to where the two sides agreed.
"""

from __future__ import annotations

from judge.messages import say
from judge.record import record

# The steps a report carries before the one that differs, as judge/pictures/pool_art.py keeps.
MAX_FRAMES = 12
# Columns of a text bar: wide enough to tell 1 of 16 blocks apart, narrow for a terminal.
BAR_COLUMNS = 32
# One character per part in the text art, so nothing is told apart by colour alone.
FILL = {
    "used": "#",
    "internal": "+",
    "external": "~",
    "hole": ".",
    "free": ".",
    "k": "K",
    "v": "V",
    "latent": "L",
    "rope": "R",
    "total": "=",
}
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1}

# The catalog's words for the bars are picture.bars.<name>, <name> being the picture's own
# data (a unit, a row, a part, a list): a stored picture names them, not the catalog's keys.
WORDS = "picture.bars."


@record
class Row:
    """One bar: its parts in order, and the request lists beside it (the scheduler's)."""

    name: str  # a word of the catalog (WORDS): pool, contiguous, paged, per_token
    parts: tuple[tuple[str, int], ...]  # (a word of the catalog, its size), left to right
    lists: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "row": self.name,
            "parts": [{"part": p, "size": n} for p, n in self.parts],
            "lists": {k: list(v) for k, v in self.lists},
        }

    @classmethod
    def from_dict(cls, data: object) -> Row:
        if type(data) is not dict or type(data.get("parts")) is not list:
            raise ValueError("a row has parts")
        parts = tuple((str(p["part"]), int(p["size"])) for p in data["parts"] if type(p) is dict)
        lists = data.get("lists")
        kept = tuple(
            (str(k), tuple(i for i in v if type(i) is int))
            for k, v in (lists.items() if type(lists) is dict else ())
            if type(v) is list
        )
        return cls(str(data.get("row")), parts, kept)


Frame = tuple[Row, ...]


def _frame_dict(frame: Frame) -> list[dict[str, object]]:
    return [row.to_dict() for row in frame]


def _frame(data: object) -> Frame:
    if type(data) is not list:
        raise ValueError("a frame is a list of rows")
    return tuple(Row.from_dict(r) for r in data)


def differs(want: Frame, mine: Frame) -> tuple[str, ...]:
    """ "row.part" (or "row.list") for each part or list whose value differs."""
    out: list[str] = []
    for w, m in zip(want, mine, strict=False):
        sizes = dict(m.parts)
        out += [f"{w.name}.{p}" for p, n in w.parts if sizes.get(p) != n]
        out += [f"{w.name}.{p}" for p in dict(m.parts) if p not in dict(w.parts)]
        lists = dict(m.lists)
        out += [f"{w.name}.{k}" for k, v in w.lists if lists.get(k) != v]
    return tuple(out)


@record
class BarTrail:
    """The bars after each step first..step as expected, and after `step` as got; for an
    answer that is not a trace (kv-bytes-per-token), one frame and step None."""

    subject: str  # scheduler, fragmentation, kv_bytes: which title the page gives it
    unit: str  # blocks, tokens, bytes
    step: int | None
    first: int
    ops: tuple[str, ...]
    expected: tuple[Frame, ...]
    got: Frame
    differs: tuple[str, ...]
    formula: tuple[tuple[str, int], ...] = ()  # kv_bytes: the factors of the expected size

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": "bars",
            "subject": self.subject,
            "unit": self.unit,
            "step": self.step,
            "first": self.first,
            "ops": list(self.ops),
            "expected": [_frame_dict(f) for f in self.expected],
            "got": _frame_dict(self.got),
            "differs": list(self.differs),
            "formula": dict(self.formula),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> BarTrail:
        step, first, ops, expected = (data.get(k) for k in ("step", "first", "ops", "expected"))
        if step is not None and type(step) is not int:
            raise ValueError("a bar trail's step is a number or null")
        if type(first) is not int or type(ops) is not list or type(expected) is not list:
            raise ValueError("a bar trail has first, ops and expected")
        if not expected:
            raise ValueError("a bar trail has an expected frame")
        found, formula = data.get("differs"), data.get("formula")
        return cls(
            str(data.get("subject")),
            str(data.get("unit")),
            step,
            first,
            tuple(str(op) for op in ops),
            tuple(_frame(f) for f in expected),
            _frame(data.get("got")),
            tuple(str(d) for d in found) if type(found) is list else (),
            tuple((str(k), int(v)) for k, v in formula.items()) if type(formula) is dict else (),
        )


def _count(value: object) -> int | None:
    """A non-negative int (bools are not counts), else None."""
    return value if type(value) is int and value >= 0 else None


def _ids(value: object) -> tuple[int, ...] | None:
    if type(value) is not list or any(type(v) is not int for v in value):
        return None
    return tuple(value)


def scheduler_frame(num_blocks: int, entry: object) -> Frame | None:
    """The pool's used and free blocks and the request lists after one scheduler step."""
    state = entry.get("state") if type(entry) is dict else None
    result = entry.get("result") if type(entry) is dict else None
    if type(state) is not dict:
        return None
    free = _count(state.get("num_free_blocks"))
    running, waiting = _ids(state.get("running")), _ids(state.get("waiting"))
    if free is None or free > num_blocks or running is None or waiting is None:
        return None
    preempted = _ids(result.get("preempted")) if type(result) is dict else None
    lists = (("running", running), ("waiting", waiting), ("preempted", preempted or ()))
    return (Row("pool", (("used", num_blocks - free), ("free", free)), lists),)


def fragmentation_frame(block_size: int, entry: object) -> Frame | None:
    """Both allocators' token slots after one event: used, wasted inside, free (and, for
    the contiguous one, the free slots outside its largest hole)."""
    if type(entry) is not dict:
        return None
    one, paged = entry.get("contiguous"), entry.get("paged")
    if type(one) is not dict or type(paged) is not dict:
        return None
    used, internal = _count(one.get("used")), _count(one.get("internal"))
    external, free = _count(one.get("external")), _count(one.get("free"))
    p_used, p_internal = _count(paged.get("used")), _count(paged.get("internal"))
    free_blocks = _count(paged.get("free_blocks"))
    if None in (used, internal, external, free, p_used, p_internal, free_blocks):
        return None
    assert used is not None and internal is not None and external is not None
    assert free is not None and p_used is not None and p_internal is not None
    assert free_blocks is not None
    # The largest hole is what is free outside the external waste; a wrong answer may
    # claim more external waste than free slots, which draws as no hole at all.
    hole = max(0, free - external)
    contiguous = (("used", used), ("internal", internal), ("external", external), ("hole", hole))
    pages = (("used", p_used), ("internal", p_internal), ("free", free_blocks * block_size))
    return (Row("contiguous", contiguous), Row("paged", pages))


def trace_trail(args: object, expected: object, got: object, step: int) -> BarTrail | None:
    """The bars of a scheduler or fragmentation trace whose first difference is at
    `step`; None where the states are neither or either side cannot be read."""
    if type(args) is not dict or type(expected) is not list or type(got) is not list:
        return None
    if not 0 <= step < len(expected) or step >= len(got):
        return None
    n, size = args.get("num_blocks"), args.get("block_size")
    if "requests" in args and type(n) is int and n > 0:
        subject, unit = "scheduler", "blocks"

        def frame(entry: object) -> Frame | None:
            return scheduler_frame(n, entry)

    elif "pool_tokens" in args and type(size) is int and size > 0:
        subject, unit = "fragmentation", "tokens"

        def frame(entry: object) -> Frame | None:
            return fragmentation_frame(size, entry)

    else:
        return None
    first = max(0, step + 1 - MAX_FRAMES)
    frames = [frame(e) for e in expected[first : step + 1]]
    mine = frame(got[step])
    if mine is None or any(f is None for f in frames):
        return None
    shown = tuple(f for f in frames if f is not None)
    labels = tuple(str(e.get("op", "")) if type(e) is dict else "" for e in expected[first:])
    return BarTrail(
        subject,
        unit,
        step,
        first,
        labels[: step + 1 - first],
        shown,
        mine,
        differs(shown[-1], mine),
    )


def kv_bytes(args: object, expected: object, got: object) -> BarTrail | None:
    """One token's KV, split by K and V (or, for MLA, latent and rope), beside the
    submission's total, from the case's config and dtype."""
    config = args.get("config") if type(args) is dict else None
    elem = DTYPE_BYTES.get(str(args.get("kv_dtype"))) if type(args) is dict else None
    if type(config) is not dict or elem is None or _count(expected) is None:
        return None
    mine = _count(got)
    if mine is None:
        return None
    layers = _count(config.get("num_hidden_layers"))
    if layers is None:
        return None
    formula: tuple[tuple[str, int], ...]
    if "kv_lora_rank" in config:
        latent, rope = _count(config.get("kv_lora_rank")), _count(config.get("qk_rope_head_dim"))
        if latent is None or rope is None:
            return None
        parts = (("latent", layers * latent * elem), ("rope", layers * rope * elem))
        formula = (("layers", layers), ("latent", latent), ("rope", rope), ("bytes", elem))
    else:
        q_heads, hidden = _count(config.get("num_attention_heads")), config.get("hidden_size")
        kv_heads = _count(config.get("num_key_value_heads", q_heads))
        if not q_heads or kv_heads is None or type(hidden) is not int:
            return None
        head_dim = _count(config.get("head_dim", hidden // q_heads))
        if head_dim is None:
            return None
        half = layers * kv_heads * head_dim * elem
        parts = (("k", half), ("v", half))
        formula = (
            ("layers", layers),
            ("kv_heads", kv_heads),
            ("head_dim", head_dim),
            ("bytes", elem),
        )
    if sum(n for _, n in parts) != expected:
        return None  # the config is not the one the reference read: draw nothing wrong
    want = (Row("per_token", parts),)
    got_frame = (Row("per_token", (("total", mine),)),)
    found = () if mine == expected else ("per_token.total",)
    return BarTrail("kv_bytes", "bytes", None, 0, (), (want,), got_frame, found, formula)


def sums_to(row: Row, other: Row) -> bool:
    """Whether `row`'s parts should end with their sum: the other side of the row is a lone
    total (kv-bytes-per-token's answer), so the two totals can be read side by side rather
    than only from the formula under the bars."""
    return _lone_total(other) and not _lone_total(row)


def _lone_total(row: Row) -> bool:
    return [p for p, _ in row.parts] == ["total"]


def art_lines(picture: dict[str, object], lang: str) -> list[str]:
    """The bars after the differing step as text: each row expected above got, one
    character per part, then each part's size with a "! " where it differs (the space keeps
    the mark off the label: "!used 4" reads as one word)."""
    shown = BarTrail.from_dict(picture)
    unit = _word(shown.unit, lang)
    if shown.step is None:
        head = say(WORDS + "head", unit=unit)
    else:
        head = say(WORDS + "head_step", step=shown.step, op=shown.ops[-1], unit=unit)
    lines = ["  " + head.render(lang)]
    names = [say("picture.expected").render(lang), say("picture.got").render(lang)]
    pad = max(_width(name) for name in names) + 2
    for want, mine in zip(shown.expected[-1], shown.got, strict=False):
        widest = max(sum(n for _, n in want.parts), sum(n for _, n in mine.parts), 1)
        lines.append("    " + _word(want.name, lang))
        for name, row in zip(names, (want, mine), strict=True):
            bar = _bar(row, widest)
            sizes = ", ".join(
                ("! " if f"{row.name}.{p}" in shown.differs else "") + f"{_word(p, lang)} {n}"
                for p, n in row.parts
            )
            if sums_to(row, mine if row is want else want):
                sizes += f" = {_word('total', lang)} {sum(n for _, n in row.parts)}"
            lists = "".join(
                f"; {'! ' if f'{row.name}.{k}' in shown.differs else ''}{_word(k, lang)} "
                f"[{' '.join(str(i) for i in v)}]"
                for k, v in row.lists
            )
            lines.append(f"      {_pad(name, pad)}[{bar}]  {sizes}{lists}")
    if shown.formula:
        kind = "mla" if "latent" in dict(shown.formula) else "gqa"
        total = sum(n for _, n in shown.expected[-1][0].parts)
        formula = say(WORDS + kind, total=total, **dict(shown.formula))
        lines.append("    " + formula.render(lang))
    drawn = {p for row in shown.expected[-1] + shown.got for p, _ in row.parts}
    legend = (f"{c}: {_word(p, lang)}" for p, c in FILL.items() if p in drawn)
    lines.append("    " + "; ".join(legend))
    return lines


def _word(name: str, lang: str) -> str:
    """A unit, row, part or list of the picture in `lang`; a name the catalog lacks (a
    stored picture from another version) is a KeyError, so no art is printed."""
    return say(WORDS + name).render(lang)


def _bar(row: Row, widest: int) -> str:
    """The row's parts as characters, BAR_COLUMNS for the widest side: a part that is not
    empty keeps at least one character, so a small difference is still seen."""
    out = ""
    for part, size in row.parts:
        if size > 0:
            out += FILL.get(part, "?") * max(1, round(size * BAR_COLUMNS / widest))
    return out.ljust(BAR_COLUMNS)


def _width(text: str) -> int:
    """Columns a label takes in a terminal: a CJK character takes two."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))
