"""A public case as a test: plain Python that reproduces it outside the judge.

The snippet imports the learner's module, carries the problem's driver (`run` from its
cases.py and what `run` uses: cases.py is public, it runs in the browser too), pastes the
case's arguments and, where the expected answer is plain data, checks it as the case's
checker would. A trace is reproduced up to and including its first differing step (the
arguments cut there, judge/pictures/case_input.py), so the test stops where the learner has to look.
Written on the trusted side for public cases only, like the input it shows.
"""

from __future__ import annotations

import json
import os

from judge.messages import say
from judge.record import record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from judge.pictures.case_input import CaseInput
    from judge.problem.checkers import CheckSpec

# A test longer than this (a long trace's expected states) is not offered: a report holds
# one per failing public case.
MAX_TEST_CHARS = 256 * 1024


@record
class Reproducer:
    """What every snippet of one run shares: the problem, its driver and the learner's file."""

    slug: str
    driver: str  # the problem's cases.py
    solution: str = ""  # the learner's file as they name it; "" for what `judge init` writes

    def snippet(
        self, case: str, shown: CaseInput, expected: object, check: CheckSpec
    ) -> str | None:
        """The test for `case`, or None when it would be too long or its input is omitted."""
        if shown.args is None:
            return None
        solution = self.solution or f"{self.slug.replace('-', '_')}.py"
        text = "\n".join(
            [
                *_header(self.slug, case, solution),
                _import(solution),
                "",
                f"# The judge's driver, from {self.slug}'s cases.py: it calls your code.",
                driver_code(self.driver),
                "",
                *_body(case, shown, expected, check),
            ]
        )
        return text if len(text) <= MAX_TEST_CHARS else None


def _header(slug: str, case: str, solution: str) -> list[str]:
    test = f"test_{case.replace('-', '_').replace('.', '_')}.py"
    save = say("picture.test_save", test=test, solution=os.path.basename(solution))
    return [
        f'"""Case "{case}" of {slug}, reproduced outside the judge.',
        "",
        save.render("en"),
        f"    python {test}",
        save.render("zh"),
        f"    python {test}",
        '"""',
        "",
    ]


def _import(solution: str) -> str:
    folder, name = os.path.split(solution)
    module = name[:-3] if name.endswith(".py") else name
    if module.isidentifier() and not folder:
        return f"import json\n\nimport {module} as submission"
    if module.isidentifier():
        path = f"sys.path.insert(0, {folder!r})"
        return f"import json\nimport sys\n\n{path}\nimport {module} as submission"
    return "\n".join(  # a file name that is not a module name: load it by its path
        [
            "import importlib.util",
            "import json",
            "",
            f"_spec = importlib.util.spec_from_file_location('submission', {solution!r})",
            "submission = importlib.util.module_from_spec(_spec)",
            "_spec.loader.exec_module(submission)",
        ]
    )


def _body(case: str, shown: CaseInput, expected: object, check: CheckSpec) -> list[str]:
    # Imported here: every run makes a Reproducer, only a failing public case a test.
    from judge.pictures.case_input import trace_labels

    labels = trace_labels(expected)
    step = shown.step
    if labels is not None and step is not None:
        expected = expected[: step + 1]  # type: ignore[index]
    lines = ["", f"args = {_literal(shown.args)}"]
    if not _plain(expected):  # a tensor or a non-finite float: no literal can say it
        lines += ["got = run(submission, args)", "print(got)"]
        lines.append("# The expected value is not plain data: compare with the judge's report.")
        return lines
    lines.insert(0, _comparer(check))
    if labels is not None and step is not None:
        lines += [
            f"# What the reference returns on steps 0-{step}: up to the first that "
            + ("raises." if shown.raised else "differs."),
            f"expected = {_literal(expected)}",
            "",
            "got = run(submission, args)",
            "for step, (g, e) in enumerate(zip(got, expected)):",
            "    assert same(g, e), f\"step {step} ({e['op']}):\\n got      {g}\\n expected {e}\"",
            "assert len(got) >= len(expected), f'{len(got)} steps, expected {len(expected)}'",
        ]
    else:
        lines += [
            f"expected = {_literal(check.compared(expected))}",
            "",
            "got = run(submission, args)",
        ]
        if check.unchecked:
            keys = sorted(check.unchecked)
            lines += [
                f"# The judge reports {', '.join(keys)} but does not compare it.",
                "if isinstance(got, dict):",
                f"    got = {{k: v for k, v in got.items() if k not in {keys!r}}}",
            ]
        lines.append('assert same(got, expected), f"\\n got      {got!r}\\n expected {expected!r}"')
    lines.append(f"print({case + ': as expected'!r})")
    return lines


def _comparer(check: CheckSpec) -> str:
    """`same(got, expected)`, comparing as the case's checker does."""
    if check.kind == "exact":
        return _EXACT
    return _VALUE.format(rel_tol=check.rel_tol, abs_tol=check.abs_tol)


_EXACT = '''
def same(got, expected):
    """As the judge's exact checker: the same data and types (1, 1.0 and True differ)."""
    return json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
'''

_VALUE = '''
def same(got, expected, rel_tol={rel_tol!r}, abs_tol={abs_tol!r}):
    """As the judge's value checker: floats within the tolerance, everything else exactly."""
    if type(expected) is float:
        return type(got) in (int, float) and abs(got - expected) <= max(
            rel_tol * abs(expected), abs_tol
        )
    if type(expected) is list:
        return (
            isinstance(got, (list, tuple))
            and len(got) == len(expected)
            and all(same(g, e) for g, e in zip(got, expected))
        )
    if type(expected) is dict:
        return (
            isinstance(got, dict)
            and got.keys() == expected.keys()
            and all(same(got[k], e) for k, e in expected.items())
        )
    return type(got) is type(expected) and got == expected
'''


def _plain(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


# Past this much JSON a value is pasted as JSON text (json's C encoder), not laid out by
# pprint: a long trace's expected states took pprint a tenth of a second per case.
PRETTY_CHARS = 4096


def _literal(value: object) -> str:
    """Plain data as Python: a literal laid out one item a line where it is short, else
    `json.loads("...")` of its JSON text (the same values: JSON data is Python data)."""
    text = json.dumps(value, allow_nan=False)
    if len(text) > PRETTY_CHARS:
        return f"json.loads({text!r})"
    import pprint  # only a failing public case pays for it

    return pprint.pformat(value, width=96, sort_dicts=False)


_DRIVERS: dict[str, str] = {}  # one problem's driver serves every case of a run


def driver_code(source: str) -> str:
    """`run` from a problem's cases.py and every top-level statement it needs (imports,
    helpers, constants), in their order in the file."""
    if source not in _DRIVERS:
        _DRIVERS.clear()
        _DRIVERS[source] = _extract(source, "run")
    return _DRIVERS[source]


def _extract(source: str, root: str) -> str:
    import ast

    tree = ast.parse(source)
    binders: dict[str, list[int]] = {}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue  # it would have to open the snippet; the driver runs without it
        for name in _bound(node):
            binders.setdefault(name, []).append(i)
    keep: set[int] = set()
    todo = [root]
    while todo:
        for i in binders.get(todo.pop(), []):
            if i not in keep:
                keep.add(i)
                todo.extend(_used(tree.body[i]) & binders.keys())
    lines = source.splitlines()
    parts = []
    for i in sorted(keep):
        node = tree.body[i]
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        parts.append("\n".join(lines[first - 1 : node.end_lineno]))
    return "\n\n\n".join(parts)


def _bound(node: object) -> set[str]:
    """The module-level names a top-level statement binds."""
    import ast

    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    names: set[str] = set()
    for child in getattr(node, "body", []) + getattr(node, "orelse", []):
        names |= _bound(child)  # if/try/with at the top level bind at the top level too
    return names


def _used(node: object) -> set[str]:
    import ast

    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}  # type: ignore[arg-type]
