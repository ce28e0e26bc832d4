"""A problem folder, loaded and validated: problems/<slug>/problem.toml and its files."""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum
from pathlib import Path

from judge.errors import SpecError
from judge.messages import LANGS
from judge.problem.checkers import CHECKER_KINDS, CheckSpec, Tolerance
from judge.problem.device import Device
from judge.problem.guide import Hint, has_editorial, load_hints
from judge.problem.limits import CpuRule, Limits
from judge.record import record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    # Imported where used: `judge run` on a code problem loads neither (start-up time).
    from judge.problem.input_rules import InputRules
    from judge.problem.speed_spec import SpeedSpec
    from judge.problem.wrong_solution import WrongSolution
    from judge.quiz.questions import Quiz

TIERS = ("browser", "torch")
# The devices a problem's cases can be judged on (problem.toml `devices`, default ["cpu"]); the
# judge picks one per job (judge/problem/device.py). A problem that lists only "cuda" is judged
# only by workers that have an NVIDIA GPU (the server's gpu queue).
DEVICES = tuple(d.value for d in Device)
# How hard the problem is for a reader of its chapter (the problem list shows it); optional,
# because a problem written before the field existed is still a problem.
DIFFICULTIES = ("easy", "medium", "hard")
# The id of the chapter section a problem practises (`section = "prefill-decode"`); the web
# app knows the chapter's sections and links to them, the core only checks the id's shape.
SECTION_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REQUIRED_FILES = (
    "problem.toml",
    "statement.zh.md",
    "statement.en.md",
    "starter.py",
    "reference.py",
    "cases.py",
)
CODE_FILES = ("starter.py", "reference.py", "cases.py")
QUIZ_FILES = (
    "problem.toml",
    "statement.zh.md",
    "statement.en.md",
    "questions.toml",
    "answers.toml",
)
# A quiz runs nothing, so its limits only bound the judge's own work; no problem.toml sets them.
QUIZ_LIMITS = Limits(time_per_case_s=1.0, total_time_s=10.0, memory_mb=256)


class ProblemKind(str, Enum):
    """The names of the built-in kinds: code run on cases, or a quiz's answer sheet. A kind
    is a class of judge/kinds/ (how its problems load, judge, bundle, prove themselves and
    show); another kind registers its own name there (judge.kinds.registry.register)."""

    CODE = "code"
    QUIZ = "quiz"

    def __str__(self) -> str:
        return self.value


class DriverSide(str, Enum):
    """Where a code problem's cases.py drives the submission (problem.toml `[driver] side`):
    in the job, beside the learner's code (the default), or in a trusted child of its own
    that reaches the learner's objects only through calls the parent carries
    (judge/run/hosted_session.py): for a problem whose driver keeps the rules (a serving
    engine's runner, pool, budget and trace), which the learner's process must not reach."""

    JOB = "job"
    TRUSTED = "trusted"

    def __str__(self) -> str:
        return self.value


@record
class ProblemSpec:
    slug: str
    title: dict[str, str]
    tier: str
    order: int
    chapter: str
    points: int
    tags: tuple[str, ...]
    limits: Limits
    names: tuple[str, ...]
    checker: CheckSpec
    path: Path
    version: str
    kind: str = ProblemKind.CODE  # a registered kind's name (a ProblemKind for a built-in one)
    quiz: Quiz | None = None  # a quiz's questions and answer key (judge/quiz/questions.py)
    cpu_rule: CpuRule | None = None  # [limits] cpu_vs_reference: the calibrated cases' CPU cap
    speed: SpeedSpec | None = None  # [speed]: a speed problem, scored on its timed cases
    # Where its cases can run, in problem.toml's order; the judge picks one per job
    devices: tuple[Device, ...] = (Device.CPU,)
    difficulty: str | None = None  # one of DIFFICULTIES, or None where problem.toml has none
    section: str | None = None  # the chapter section it practises (SECTION_RE), if named
    # The chapter's own exercise it is ("本章练习题" N, problem.toml `exercise`), if one
    exercise: int | None = None
    hints: tuple[Hint, ...] = ()  # hints.<lang>.md (judge/problem/guide.py): public
    has_editorial: bool = False  # editorial.<lang>.md exist: shown only after an AC
    # The mini_llm modules that do what this problem practises ([submission] practises),
    # never available to the submission (judge/problem/withheld.py; in the sandbox, not in the job)
    withheld: tuple[str, ...] = ()
    driver: DriverSide = DriverSide.JOB  # [driver] side: where cases.py runs
    # problem.toml `models`: the mini_llm checkpoints its cases load (zoo names). A fresh
    # sandbox worker loads these before its job and no others; a warm one has them all.
    models: tuple[str, ...] = ()

    @property
    def hosted(self) -> bool:
        """Whether the job only hosts the learner's objects for a trusted driver."""
        return self.driver is DriverSide.TRUSTED

    def input_rules(self) -> InputRules:
        """What a learner's own arguments must keep to (problem.toml `[input]`); read when an
        input is checked, never on a judging's path. SpecError names a bad declaration."""
        from judge.problem.input_rules import InputRules  # only a custom input pays for it

        return InputRules.of(_rel(self.path / "problem.toml"), self._read("problem.toml"))

    def statement(self, lang: str) -> str:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
        return self._read(f"statement.{lang}.md")

    def editorial(self, lang: str) -> str | None:
        """The editorial in `lang`, or None when the problem has none. Never public: the
        web shows it only to a user with an accepted submission."""
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
        return self._read(f"editorial.{lang}.md") if self.has_editorial else None

    def starter_source(self) -> str:
        """starter.py; for a quiz, the blank answer sheet (every question, null)."""
        if self.quiz is not None:
            return self.quiz.blank_sheet()
        return self._read("starter.py")

    def reference_source(self) -> str:
        """reference.py; for a quiz, answers.toml as an answer sheet. Never public."""
        if self.quiz is not None:
            return self.quiz.reference_sheet()
        return self._read("reference.py")

    def cases_source(self) -> str:
        if self.quiz is not None:
            raise SpecError(_rel(self.path / "cases.py"), None, "a quiz has no cases.py")
        return self._read("cases.py")

    def wrong_solutions(self) -> list[WrongSolution]:
        """solutions/wrong/*.py, each with its header (judge/problem/wrong_solution.py); for a quiz,
        solutions/wrong/*.json answer sheets, each with its "_expect" key."""
        from judge.problem.wrong_solution import load_wrong_sheet, load_wrong_solution

        folder = self.path / "solutions" / "wrong"
        if self.quiz is not None:
            return [load_wrong_sheet(p, _rel(p)) for p in sorted(folder.glob("*.json"))]
        return [load_wrong_solution(p, _rel(p)) for p in sorted(folder.glob("*.py"))]

    def accepted_solutions(self) -> list[Path]:
        """solutions/accepted/*.py: other right solutions than the reference (slower ones,
        other layouts), each of which must be AC: the limits and rules leave room for them."""
        return sorted((self.path / "solutions" / "accepted").glob("*.py"))

    def summary(self) -> dict[str, object]:
        """Public metadata as plain data (for --json and the web)."""
        return {
            "slug": self.slug,
            "kind": str(self.kind),
            "title": dict(self.title),
            "tier": self.tier,
            "order": self.order,
            "chapter": self.chapter,
            "points": self.points,
            "tags": list(self.tags),
            "limits": self.limits.to_dict(),
            "names": list(self.names),
            "speed": {"unit": self.speed.unit} if self.speed else None,
            "devices": [d.value for d in self.devices],
            "difficulty": self.difficulty,
            "section": self.section,
            "withheld": list(self.withheld),
            "version": self.version,
        }

    def _read(self, name: str) -> str:
        return (self.path / name).read_text(encoding="utf-8")


def load_problem(folder: Path) -> ProblemSpec:
    """Load and validate one problem folder; raises SpecError naming the file and field."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SpecError(str(folder), None, "not a problem folder")
    toml_path = folder / "problem.toml"
    require_text(toml_path)
    # Here, not at the top: a spec the command line's cache holds needs neither tomllib nor
    # hashlib (judge/problem/spec_cache.py), and the two are 7 ms of a `judge run`.
    import tomllib

    try:
        data = tomllib.loads((toml_path).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(_rel(toml_path), None, f"invalid TOML: {exc}") from None
    file = _rel(toml_path)
    load = _loader(data, file)
    return load(ProblemToml(data, folder, file))


@record
class ProblemToml:
    """A problem folder whose problem.toml has been read: what a kind's loader starts from."""

    data: dict[str, object]
    folder: Path
    file: str  # problem.toml's path as errors name it

    def require(self, names: tuple[str, ...]) -> None:
        """Each of `names` (the kind's files) is there and is UTF-8 text."""
        for name in names:
            require_text(self.folder / name)

    def common(self) -> CommonFields:
        """The fields every kind of problem has (slug, title, tier, ...), validated."""
        return _common(Fields(self.data, self.file), self.folder, self.file)


Loader = Callable[[ProblemToml], "ProblemSpec"]


def load_code(toml: ProblemToml) -> ProblemSpec:
    """A code problem: starter.py, reference.py and cases.py, run on cases."""
    toml.require(REQUIRED_FILES)
    return _build(toml.data, toml.folder, toml.file)


def load_quiz(toml: ProblemToml) -> ProblemSpec:
    """A quiz: questions.toml and answers.toml, judged as data."""
    toml.require(QUIZ_FILES)
    return _build_quiz(toml.data, toml.folder, toml.file)


# How a folder of each kind loads, by problem.toml's `kind`. The built-in kinds' loaders are
# here, since loading needs nothing above this room; judge.kinds.registry.register adds the
# loader of any other kind (the hook by which the core's top reaches its bottom).
LOADERS: dict[str, Loader] = {ProblemKind.CODE: load_code, ProblemKind.QUIZ: load_quiz}


def _loader(data: dict[str, object], file: str) -> Loader:
    value = data.get("kind", ProblemKind.CODE.value)
    if not isinstance(value, str) or value not in LOADERS:
        kinds = ", ".join(LOADERS)
        raise SpecError(file, "kind", f"{value!r} must be one of {kinds}") from None
    return LOADERS[value]


def _build_quiz(data: dict[str, object], folder: Path, file: str) -> ProblemSpec:
    """A quiz: no code, so no [submission], [limits] or [checker], and none of the code files."""
    for table in ("submission", "limits", "checker"):
        if table in data:
            raise SpecError(file, table, "a quiz has none: its answers are data, not code")
    for name in CODE_FILES:
        if (folder / name).exists():
            raise SpecError(_rel(folder / name), None, "a quiz has no code files")
    common = _common(Fields(data, file), folder, file)
    if common.tier != "browser":
        raise SpecError(file, "tier", "a quiz is browser tier: it needs nothing to run")
    from judge.quiz.questions import load_quiz

    quiz = load_quiz(folder, _rel(folder / "questions.toml"), _rel(folder / "answers.toml"))
    return common.spec(QUIZ_LIMITS, (), parse_check({}, file, "checker"), folder, quiz)


@record
class CommonFields:
    """The problem.toml fields every kind of problem has."""

    slug: str
    title: dict[str, str]
    tier: str
    order: int
    chapter: str
    points: int
    tags: tuple[str, ...]
    devices: tuple[Device, ...] = (Device.CPU,)
    difficulty: str | None = None
    section: str | None = None
    exercise: int | None = None

    def spec(
        self,
        limits: Limits,
        names: tuple[str, ...],
        checker: CheckSpec,
        folder: Path,
        quiz: Quiz | None = None,
        cpu_rule: CpuRule | None = None,
        speed: SpeedSpec | None = None,
        withheld: tuple[str, ...] = (),
        kind: str | None = None,  # a registered kind's name; else code, or quiz with `quiz`
        driver: DriverSide = DriverSide.JOB,
        models: tuple[str, ...] = (),
    ) -> ProblemSpec:
        if kind is None:
            kind = ProblemKind.CODE if quiz is None else ProblemKind.QUIZ
        return ProblemSpec(
            slug=self.slug,
            title=self.title,
            tier=self.tier,
            order=self.order,
            chapter=self.chapter,
            points=self.points,
            tags=self.tags,
            limits=limits,
            names=names,
            checker=checker,
            path=folder,
            version=content_version(folder),
            kind=kind,
            quiz=quiz,
            cpu_rule=cpu_rule,
            speed=speed,
            devices=self.devices,
            difficulty=self.difficulty,
            section=self.section,
            exercise=self.exercise,
            hints=load_hints(folder),
            has_editorial=has_editorial(folder),
            withheld=withheld,
            driver=driver,
            models=models,
        )


def _common(f: Fields, folder: Path, file: str) -> CommonFields:
    slug = f.string("slug")
    if not SLUG_RE.match(slug):
        raise SpecError(file, "slug", f"{slug!r} must be lowercase letters, digits and dashes")
    if slug != folder.name:
        raise SpecError(file, "slug", f"{slug!r} must equal the folder name {folder.name!r}")
    tier = f.string("tier")
    if tier not in TIERS:
        raise SpecError(file, "tier", f"{tier!r} must be one of {', '.join(TIERS)}")
    devices = _devices(f, tier)
    difficulty = f.data.get("difficulty")
    if difficulty is not None and difficulty not in DIFFICULTIES:
        choices = ", ".join(f'"{d}"' for d in DIFFICULTIES)
        raise SpecError(file, "difficulty", f"{difficulty!r} must be one of {choices}")
    section = f.data.get("section")
    if section is not None and not (isinstance(section, str) and SECTION_RE.match(section)):
        raise SpecError(
            file, "section", f"{section!r} must be lowercase letters, digits and dashes"
        )
    exercise = f.data.get("exercise")
    if exercise is not None and (type(exercise) is not int or exercise < 1):
        raise SpecError(file, "exercise", f"{exercise!r} must be the exercise's number, >= 1")
    return CommonFields(
        slug=slug,
        title=_titles(f.table("title"), file),
        tier=tier,
        order=f.integer("order", minimum=0),
        chapter=f.string("chapter"),
        points=f.integer("points", minimum=0),
        tags=tuple(f.strings("tags")),
        devices=devices,
        difficulty=difficulty if isinstance(difficulty, str) else None,
        section=section if isinstance(section, str) else None,
        exercise=exercise,
    )


def _devices(f: Fields, tier: str) -> tuple[Device, ...]:
    """problem.toml `devices`: a non-empty list of distinct DEVICES; "cuda" for torch only."""
    if "device" in f.data:  # the single key this list replaced: say so rather than ignore it
        raise SpecError(f.file, "device", 'replaced by `devices = ["cpu", "cuda"]` (a list)')
    if "devices" not in f.data:
        return (Device.CPU,)
    names = f.strings("devices")
    if not names:
        raise SpecError(f.file, "devices", "must list at least one of " + ", ".join(DEVICES))
    for name in names:
        if name not in DEVICES:
            raise SpecError(f.file, "devices", f"{name!r} must be one of {', '.join(DEVICES)}")
    if len(set(names)) != len(names):
        raise SpecError(f.file, "devices", "lists a device twice")
    if "cuda" in names and tier != "torch":
        raise SpecError(f.file, "devices", "only a torch-tier problem can run on a GPU")
    return tuple(Device(name) for name in names)


def _build(data: dict[str, object], folder: Path, file: str) -> ProblemSpec:
    f = Fields(data, file)
    limits = Fields(f.table("limits"), file, "limits")
    speed = None
    if "speed" in data:
        from judge.problem.speed_spec import SpeedSpec  # only speed problems pay for it

        speed = SpeedSpec.from_table(f.table("speed"), file)
    common = _common(f, folder, file)
    submission = Fields(f.table("submission"), file, "submission")
    cpu_rule = _cpu_rule(limits)
    return common.spec(
        limits=_limits(limits),
        names=_names(submission),
        checker=parse_check(f.optional_table("checker"), file, "checker"),
        folder=folder,
        cpu_rule=cpu_rule,
        speed=speed,
        withheld=_withheld(submission, common.tier),
        driver=_driver(Fields(f.optional_table("driver"), file, "driver"), cpu_rule),
        models=_models(f, common.tier),
    )


def _models(f: Fields, tier: str) -> tuple[str, ...]:
    """`models`: the checkpoints the cases load, by mini_llm.zoo name (checked against
    what they load by tests/problems/test_problem_models.py)."""
    if "models" not in f.data:
        return ()
    names = f.strings("models")
    if tier != "torch":
        raise SpecError(f.file, "models", "only a torch-tier problem loads checkpoints")
    for name in names:
        if not SLUG_RE.match(name):
            raise SpecError(f.file, "models", f"{name!r} is not a checkpoint's name")
    if len(set(names)) != len(names):
        raise SpecError(f.file, "models", "lists a checkpoint twice")
    return tuple(names)


def _driver(f: Fields, cpu_rule: CpuRule | None) -> DriverSide:
    """[driver] side: "job" (the default) or "trusted". A trusted driver's cases run in two
    processes, so no CPU rule can count one case's work: the two exclude each other."""
    if "side" not in f.data:
        return DriverSide.JOB
    side = f.string("side")
    if side not in {d.value for d in DriverSide}:
        choices = ", ".join(f'"{d.value}"' for d in DriverSide)
        raise SpecError(f.file, "driver.side", f"{side!r} must be one of {choices}")
    if side == DriverSide.TRUSTED and cpu_rule is not None:
        raise SpecError(
            f.file,
            "driver.side",
            "a trusted driver's cases run in two processes: no CPU rule can count them "
            "(leave out [limits] cpu_vs_reference)",
        )
    return DriverSide(side)


def _withheld(f: Fields, tier: str) -> tuple[str, ...]:
    """[submission] practises: the parts of the exercise (PRACTISED_PARTS), from which the
    modules a torch problem withholds are derived (judge/problem/withheld.py)."""
    if "withheld" in f.data:
        raise SpecError(
            f.file,
            "submission.withheld",
            "replaced by `practises`: name the parts the exercise practises, and the "
            "modules that do them are withheld (judge/problem/withheld.py)",
        )
    if "practises" not in f.data:
        return ()
    from judge.problem.withheld import PRACTISED_PARTS, withheld_for

    parts = f.strings("practises")
    if tier != "torch":
        raise SpecError(
            f.file,
            "submission.practises",
            "only a torch-tier problem has library parts to withhold",
        )
    for part in parts:
        if part not in PRACTISED_PARTS:
            choices = ", ".join(PRACTISED_PARTS)
            raise SpecError(
                f.file, "submission.practises", f"{part!r} is not a part (one of {choices})"
            )
    if len(set(parts)) != len(parts):
        raise SpecError(f.file, "submission.practises", "lists a part twice")
    return withheld_for(tuple(parts))


def _cpu_rule(f: Fields) -> CpuRule | None:
    """Both keys or neither: a factor without its slack (or the reverse) is a mistake."""
    keys = ("cpu_vs_reference", "cpu_slack_s")
    present = [k for k in keys if k in f.data]
    if not present:
        return None
    if len(present) == 1:
        missing = next(k for k in keys if k not in present)
        raise SpecError(f.file, f"limits.{missing}", f"missing (limits.{present[0]} needs it)")
    return CpuRule(
        factor=f.number("cpu_vs_reference", low=1.5, high=100.0),
        slack_s=f.number("cpu_slack_s", low=0.0, high=60.0),
    )


def _titles(table: dict[str, object], file: str) -> dict[str, str]:
    out = {}
    for lang in LANGS:
        value = table.get(lang)
        if type(value) is not str or not value.strip():
            raise SpecError(file, f"title.{lang}", "must be a non-empty string")
        out[lang] = value
    return out


def _limits(f: Fields) -> Limits:
    per_case = f.number("time_per_case_s", low=0.01, high=600)
    total = f.number("total_time_s", low=0.01, high=3600)
    if total < per_case:
        raise SpecError(
            f.file, "limits.total_time_s", f"{total} is less than time_per_case_s {per_case}"
        )
    # A GPU job's device memory is bounded by memory_mb too unless the problem states its own.
    device_mb = f.integer("device_memory_mb", minimum=16) if "device_memory_mb" in f.data else None
    return Limits(
        time_per_case_s=per_case,
        total_time_s=total,
        memory_mb=f.integer("memory_mb", minimum=16),
        device_memory_mb=device_mb,
    )


def _names(f: Fields) -> tuple[str, ...]:
    names = f.strings("names")
    if not names:
        raise SpecError(
            f.file, "submission.names", "must list at least one name the submission defines"
        )
    for name in names:
        if not NAME_RE.match(name):
            raise SpecError(f.file, "submission.names", f"{name!r} is not a Python identifier")
    return tuple(names)


def parse_check(table: dict[str, object], file: str, field: str) -> CheckSpec:
    """A checker table (problem.toml [checker] or a case's "check"); its rel_tol and abs_tol
    are a CPU job's, an optional `cuda` table (rel_tol, abs_tol) a CUDA job's; `unchecked`
    lists keys of a dict observation that are reported but not compared."""
    unknown = set(table) - {"kind", "rel_tol", "abs_tol", "cuda", "unchecked"}
    if unknown:
        raise SpecError(file, f"{field}.{sorted(unknown)[0]}", "unknown key")
    kind = table.get("kind", "value")
    if kind not in CHECKER_KINDS:
        raise SpecError(
            file, f"{field}.kind", f"{kind!r} must be one of {', '.join(CHECKER_KINDS)}"
        )
    rel, abs_ = _tolerances(table, file, field, (1e-9, 0.0))
    cuda = None
    if "cuda" in table:
        gpu = table["cuda"]
        if type(gpu) is not dict:
            raise SpecError(file, f"{field}.cuda", "must be a table with rel_tol and abs_tol")
        unknown = set(gpu) - {"rel_tol", "abs_tol"}
        if unknown:
            raise SpecError(file, f"{field}.cuda.{sorted(unknown)[0]}", "unknown key")
        cuda_rel, cuda_abs = _tolerances(gpu, file, f"{field}.cuda", (rel, abs_))
        if cuda_rel < rel or cuda_abs < abs_:
            # The GPU's results differ from the CPU reference by at least what the CPU's do.
            raise SpecError(file, f"{field}.cuda", "must not be tighter than the CPU's tolerance")
        cuda = Tolerance(cuda_rel, cuda_abs)
    unchecked = table.get("unchecked", [])
    if (
        type(unchecked) is not list
        or not all(type(k) is str and k for k in unchecked)
        or len(set(unchecked)) != len(unchecked)
    ):
        raise SpecError(file, f"{field}.unchecked", "must be a list of distinct key names")
    return CheckSpec(
        kind=str(kind), rel_tol=rel, abs_tol=abs_, cuda=cuda, unchecked=tuple(unchecked)
    )


def _tolerances(
    table: dict[str, object], file: str, field: str, defaults: tuple[float, float]
) -> tuple[float, float]:
    tols = []
    for key, default in zip(("rel_tol", "abs_tol"), defaults, strict=True):
        value = table.get(key, default)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < 1e9:
            raise SpecError(file, f"{field}.{key}", f"{value!r} must be a number >= 0")
        tols.append(float(value))
    return tols[0], tols[1]


def content_version(folder: Path) -> str:
    """A short hash of every file in the folder (names and bytes), so any edit is a new version."""
    import hashlib  # see load_problem

    digest = hashlib.sha256()
    for path in sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def require_text(path: Path) -> None:
    if not path.is_file():
        raise SpecError(_rel(path), None, "missing file")
    try:
        path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(_rel(path), None, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _rel(path: Path) -> str:
    parts = path.parts
    return "/".join(parts[-3:]) if len(parts) >= 3 else str(path)


class Fields:
    """Typed access to a TOML table with errors naming file and field."""

    def __init__(self, data: dict[str, object], file: str, prefix: str = "") -> None:
        self.data, self.file, self.prefix = data, file, prefix

    def _get(self, key: str) -> object:
        if key not in self.data:
            raise SpecError(self.file, self._name(key), "missing")
        return self.data[key]

    def _name(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def string(self, key: str) -> str:
        value = self._get(key)
        if type(value) is not str or not value:
            raise SpecError(
                self.file, self._name(key), f"must be a non-empty string, got {value!r}"
            )
        return value

    def strings(self, key: str) -> list[str]:
        value = self._get(key)
        if type(value) is not list or any(type(v) is not str for v in value):
            raise SpecError(self.file, self._name(key), "must be a list of strings")
        return list(value)

    def integer(self, key: str, minimum: int) -> int:
        value = self._get(key)
        if type(value) is not int or value < minimum:
            raise SpecError(
                self.file, self._name(key), f"must be an integer >= {minimum}, got {value!r}"
            )
        return value

    def number(self, key: str, low: float, high: float) -> float:
        value = self._get(key)
        if type(value) not in (int, float) or not low <= value <= high:  # type: ignore[operator]
            raise SpecError(
                self.file, self._name(key), f"must be a number in [{low}, {high}], got {value!r}"
            )
        return float(value)  # type: ignore[arg-type]

    def optional_table(self, key: str) -> dict[str, object]:
        return self.table(key) if key in self.data else {}

    def table(self, key: str) -> dict[str, object]:
        value = self._get(key)
        if type(value) is not dict:
            raise SpecError(self.file, self._name(key), "must be a table")
        return value
