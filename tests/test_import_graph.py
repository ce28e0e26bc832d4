"""The import graph of judge/, runner/, web/ and mini_llm/, read from the sources with ast.

Nothing is imported: the graph is what the files say, so a lazy import inside a function
counts as much as one at the top (it runs the first time the function does). Imports under
`if TYPE_CHECKING:` never run; they count for the layer rules (an annotation that names a
package is knowledge of it) but not for cycles (they cannot take part in an import-time
loop, and a type-only reference back is how a Protocol and its implementer name each other).
The layers are those of docs/ARCHITECTURE.md: the core knows only the standard library, the
runner never knows the web platform, mini_llm knows none of them, and only the `judge`
entry point (practice_judge.py) assembles them into one command.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "runner", "web", "mini_llm", "devtools", "handbook")
ENTRY_POINT = "practice_judge"


@dataclass(frozen=True, slots=True)
class Edge:
    """`source` imports `target` at `line`; `target` is None for a name computed at run time."""

    source: str
    target: str | None
    line: int
    type_only: bool = False

    def __str__(self) -> str:
        where = f"{self.source} (line {self.line})"
        return f"{where} -> {self.target or 'a module named at run time'}"


def module_files(root: Path = REPO) -> dict[str, Path]:
    """Every module of the packages (and the entry point), by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    entry = root / f"{ENTRY_POINT}.py"
    if entry.is_file():
        found[ENTRY_POINT] = entry
    return found


def edges_of(name: str, source: str, known: Iterable[str], is_package: bool = False) -> list[Edge]:
    """The imports in one module's source: statements anywhere, and import_module("...")."""
    visitor = _ImportVisitor(name, set(known), is_package)
    visitor.visit(ast.parse(source))
    return visitor.edges


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self, name: str, known: set[str], is_package: bool) -> None:
        self.name, self.known = name, known
        self.package = name if is_package else name.rpartition(".")[0]
        self.edges: list[Edge] = []
        self.type_only = 0

    def _add(self, target: str | None, node: ast.stmt | ast.expr) -> None:
        self.edges.append(Edge(self.name, target, node.lineno, self.type_only > 0))

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self.type_only += 1
            for child in node.body:
                self.visit(child)
            self.type_only -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self._absolute(node.level, node.module)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"  # `from judge import messages` names judge.messages
            self._add(submodule if submodule in self.known else base, node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if called in ("import_module", "__import__") and node.args:
            first = node.args[0]
            value = first.value if isinstance(first, ast.Constant) else None
            self._add(value if isinstance(value, str) else None, node)
        self.generic_visit(node)

    def _absolute(self, level: int, module: str | None) -> str:
        if level == 0:
            return module or ""
        parts = self.package.split(".")
        base = ".".join(parts[: len(parts) - (level - 1)])
        return f"{base}.{module}" if module else base


def _is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def all_edges(root: Path = REPO) -> list[Edge]:
    files = module_files(root)
    edges: list[Edge] = []
    for name, path in files.items():
        text = path.read_text(encoding="utf-8")
        edges += edges_of(name, text, files, is_package=path.name == "__init__.py")
    return edges


def top(module: str | None) -> str:
    return (module or "").partition(".")[0]


def cycles(edges: Iterable[Edge], nodes: Iterable[str]) -> list[list[str]]:
    """Each strongly connected group of two or more modules (or one importing itself), as
    one concrete loop through it: [a, b, ..., a]."""
    graph: dict[str, set[str]] = {n: set() for n in nodes}
    for e in edges:
        if not e.type_only and e.target in graph:
            graph[e.source].add(e.target)
    loops = []
    for group in _strongly_connected(graph):
        if len(group) > 1 or next(iter(group)) in graph[next(iter(group))]:
            loops.append(_loop_through(graph, group))
    return sorted(loops)


def _strongly_connected(graph: dict[str, set[str]]) -> Iterator[set[str]]:
    """Tarjan's algorithm, iterative (the graph has a few hundred nodes, no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    yield group


def _loop_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no loop through {sorted(group)}")  # a group always has one


def _violations(edges: Iterable[Edge], package: str, allowed: set[str]) -> list[str]:
    return [str(e) for e in edges if top(e.source) == package and top(e.target) not in allowed]


# --- the graph itself ---


def test_the_core_imports_only_the_standard_library_and_itself() -> None:
    """judge/ runs unchanged in Pyodide and under the runner: no third-party or sibling
    package, not even lazily, and no import by a name computed at run time (an injected hook
    is how the core reaches what is above it)."""
    bad = _violations(all_edges(), "judge", set(sys.stdlib_module_names) | {"judge"})
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("runner", {"web", ENTRY_POINT}),
        ("mini_llm", {"judge", "runner", "web", ENTRY_POINT}),
        ("web", {ENTRY_POINT, "torch", "safetensors", "mini_llm", "devtools"}),
        ("judge", {"devtools"}),
        ("runner", {"devtools"}),
        # The MkDocs plugin reads the front end's build: it never runs the platform's code.
        ("handbook", {"web", "runner", "mini_llm", ENTRY_POINT}),
    ],
)
def test_no_arrow_runs_back_up(package: str, forbidden: set[str]) -> None:
    """The runner serves the web platform without knowing it; mini_llm stands alone; the web
    platform never imports torch (the runner's workers do); only the entry point (which
    nothing imports) knows every package; the development tools (devtools/, not in the
    wheel) are used by make, tests and benchmarks, never by what ships."""
    bad = [str(e) for e in all_edges() if top(e.source) == package and top(e.target) in forbidden]
    assert not bad, "\n".join(bad)


def test_the_runner_names_torch_and_mini_llm_only_where_it_declares_them() -> None:
    """Workers import the torch tier's modules by name; runner/torch_library.py holds those
    names and writes each as an import too, so the arrow is seen here. Only three modules
    import by a name computed at run time, and no other runner module imports mini_llm."""
    import runner.torch_library as declared

    edges = all_edges()
    named = {e.target for e in edges if e.source == "runner.torch_library" and e.type_only}
    assert named == {*declared.TORCH_PRELOAD, *declared.JOB_LIBRARY}
    # The places that import by name: a worker's preload, a job's library, and the trusted
    # worker's preload (runner/trusted_worker.py: the same names, for the problems' own code).
    by_name = {e.source for e in edges if top(e.source) == "runner" and e.target is None}
    assert by_name == {"runner.worker", "runner.jobspace", "runner.trusted_worker"}
    # The child's loop and the withheld finder are imported once in the worker, before any
    # fork: a job that imported them itself paid about 2 ms (the re-layout's ruff pass
    # once dropped these imports as unused, and only the benchmark noticed).
    pairs = {(e.source, e.target) for e in edges}
    assert {
        ("runner.worker", "judge.run.child"),
        ("runner.worker", "judge.problem.withheld"),
    } <= pairs
    users = {e.source for e in edges if top(e.target) == "mini_llm" and top(e.source) == "runner"}
    assert users == {"runner.torch_library"}, users


# --- the rooms inside judge/ and web/ (docs/ARCHITECTURE.md, "The map") ---

# Each room may import its own modules and the rooms of earlier layers, never a room of its
# own layer or a later one. A judge/ or web/ module outside every room is named by itself.
JUDGE_LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer)
    for layer in (
        {"judge.record"},  # how a value object is made: below every word
        {"judge", "judge.messages", "judge.textcap", "judge.verdict"},
        {"judge.errors", "judge.user_cache"},
        {"judge.wire"},
        {"judge.quiz"},
        {"judge.problem"},
        {"judge.pictures"},
        {"judge.grading"},
        {"judge.run"},
        # A kind says how its problems load, judge, bundle, prove and show themselves, with
        # the rooms below; the bundle and the commands ask it, never branch on its name.
        {"judge.kinds"},
        {"judge.browser", "judge.commands"},
    )
)
WEB_LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(layer)
    for layer in (
        {"web.store"},
        {"web.i18n"},
        {"web.config", "web.errors"},
        {"web.serving", "web.accounts", "web.boards"},
        {"web.content", "web.judging"},
        {"web.state"},
        {"web.attempts"},
        {"web.api"},
        {"web.pages"},
        {"web.app"},
        {"web"},
        {"web.cli"},
    )
)


def room_of(module: str) -> str:
    """judge.grading.report -> judge.grading; judge.errors -> judge.errors (a module of the
    package itself is its own room); runner.job -> runner (a package without rooms)."""
    parts = module.split(".")
    if parts[0] not in ("judge", "web") or len(parts) == 1:
        return parts[0]
    return ".".join(parts[:2])


def _layer_index(layers: tuple[frozenset[str], ...]) -> dict[str, int]:
    return {room: i for i, layer in enumerate(layers) for room in layer}


def room_violations(edges: Iterable[Edge]) -> list[str]:
    """Every arrow inside judge/ or web/ from a room to one it may not import, or from or
    to a module in no layer (a new room or module must be placed in the map)."""
    found = []
    for layers in (JUDGE_LAYERS, WEB_LAYERS):
        index = _layer_index(layers)
        package = next(iter(layers[0])).partition(".")[0]
        for e in edges:
            if top(e.source) != package or top(e.target) != package or e.target is None:
                continue
            source, target = room_of(e.source), room_of(e.target)
            if source not in index or target not in index:
                found.append(f"{e}: {source if source not in index else target} is in no layer")
            elif source != target and index[target] >= index[source]:
                found.append(f"{e}: {source} may not import {target}")
    return found


def test_each_room_imports_only_rooms_below_it() -> None:
    bad = room_violations(all_edges())
    assert not bad, "\n".join(bad)


def test_every_room_and_top_level_module_is_placed_in_a_layer() -> None:
    placed = set(_layer_index(JUDGE_LAYERS)) | set(_layer_index(WEB_LAYERS))
    rooms = {room_of(m) for m in module_files() if top(m) in ("judge", "web")}
    assert rooms == placed


def test_the_room_rule_catches_an_arrow_upward() -> None:
    """Guards the rule above against passing because it checks nothing."""
    edges = [Edge("judge.wire.codec", "judge.run.session", 3)]
    edges += [Edge("judge.run.session", "judge.wire.codec", 4)]
    assert room_violations(edges) == [
        "judge.wire.codec (line 3) -> judge.run.session: judge.wire may not import judge.run"
    ]


# A module's file name says what it is wherever it sits: the same name twice is allowed only
# for a package's own errors, config and cli, and for one resource's API blueprint, page
# blueprint and domain module (web/api/runs.py beside web/judging/runs.py).
SHARED_NAMES = {"__init__", "errors", "config", "cli"}


def test_no_module_name_means_two_things() -> None:
    by_name: dict[str, list[str]] = {}
    for module, path in module_files().items():
        if path.name != "__init__.py" and top(module) != ENTRY_POINT:
            by_name.setdefault(path.stem, []).append(module)
    clashes = []
    for name, modules in sorted(by_name.items()):
        if len(modules) < 2 or name in SHARED_NAMES:
            continue
        blueprints = [m for m in modules if room_of(m) in ("web.api", "web.pages")]
        if len(modules) - len(blueprints) > 1 or not blueprints:
            clashes.append(f"{name}: {', '.join(sorted(modules))}")
    assert not clashes, "\n".join(clashes)


def test_no_import_cycle_among_the_packages() -> None:
    loops = [" -> ".join(loop) for loop in cycles(all_edges(), module_files())]
    assert not loops, "\n".join(loops)


def private_imports(root: Path = REPO) -> list[str]:
    """`from judge.run.child import _error`: a name its module keeps to itself, used elsewhere."""
    files, found = module_files(root), []
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and top(node.module) in (*PACKAGES, ENTRY_POINT):
                private = [a.name for a in node.names if a.name.startswith("_")]
                private = [n for n in private if not n.startswith("__")]
                found += [f"{name} (line {node.lineno}) <- {node.module}.{n}" for n in private]
    return found


def test_no_module_imports_a_private_name_of_another() -> None:
    """What one module uses of another is that module's public, documented API."""
    bad = private_imports()
    assert not bad, "\n".join(bad)


def test_the_graph_is_read_from_every_package() -> None:
    """Guards the tests above against passing because nothing was parsed."""
    files, edges = module_files(), all_edges()
    assert {top(n) for n in files} >= set(PACKAGES)
    pairs = {(e.source, e.target) for e in edges}
    assert ("judge.run.judge_source", "judge.run.session") in pairs
    assert ("mini_llm.generation", "mini_llm.model") in pairs
    assert any(top(s) == "web" and top(t) == "runner" for s, t in pairs)


# --- the reader, on small sources ---

KNOWN = {"pkg", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c", "other"}


def _targets(source: str, name: str = "pkg.sub.c", **kwargs: bool) -> list[tuple[str | None, bool]]:
    edges = edges_of(name, textwrap.dedent(source), KNOWN, **kwargs)
    return [(e.target, e.type_only) for e in edges]


def test_reader_counts_imports_inside_functions() -> None:
    source = """
        import pkg.a
        def f():
            from pkg import b
            import other
    """
    assert _targets(source) == [("pkg.a", False), ("pkg.b", False), ("other", False)]


def test_reader_marks_type_checking_imports_but_not_their_else_branch() -> None:
    source = """
        TYPE_CHECKING = False
        if TYPE_CHECKING:
            from pkg.a import Thing
        else:
            import pkg.b
        if typing.TYPE_CHECKING:
            import other
    """
    assert _targets(source) == [("pkg.a", True), ("pkg.b", False), ("other", True)]


def test_reader_resolves_relative_imports() -> None:
    assert _targets("from . import c\nfrom .. import a\nfrom ..b import x\n") == [
        ("pkg.sub.c", False),
        ("pkg.a", False),
        ("pkg.b", False),
    ]
    assert _targets("from . import c\n", name="pkg.sub", is_package=True) == [("pkg.sub.c", False)]


def test_reader_sees_import_module_and_flags_computed_names() -> None:
    source = """
        import importlib
        def f(name):
            importlib.import_module("pkg.a")
            __import__(name)
    """
    assert _targets(source) == [("importlib", False), ("pkg.a", False), (None, False)]


def test_cycles_are_found_and_shown_as_a_loop() -> None:
    edges = [Edge("a", "b", 1), Edge("b", "c", 1), Edge("c", "a", 1), Edge("c", "d", 1)]
    edges += [Edge("d", "d", 1), Edge("e", "a", 1, type_only=True), Edge("a", "e", 1)]
    assert cycles(edges, "abcde") == [["a", "b", "c", "a"], ["d", "d"]]
