"""Loading a problem folder: every mistake names its file and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from problem_factory import TOML, MakeProblem

from judge.errors import SpecError, UnknownProblem
from judge.problem.cases import PUBLIC_SEED, build_cases
from judge.problem.problemset import ProblemSet
from judge.problem.spec import load_problem


def test_a_valid_problem_loads_with_all_fields(make_problem: MakeProblem) -> None:
    problem = load_problem(make_problem())
    assert problem.slug == "add" and problem.tier == "browser" and problem.names == ("add",)
    assert problem.title == {"zh": "加法", "en": "Addition"}
    assert problem.limits.time_per_case_s == 2.0 and problem.limits.memory_mb == 128
    assert problem.statement("zh").startswith("# 加法")
    assert len(problem.version) == 16


def test_a_gpu_jobs_device_memory_is_memory_mb_unless_device_memory_mb_is_stated(
    make_problem: MakeProblem,
) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    assert load_problem(make_problem(toml=text)).limits.device_limit_mb == 128
    stated = text.replace("memory_mb = 128", "memory_mb = 128\ndevice_memory_mb = 4096")
    limits = load_problem(make_problem(toml=stated)).limits
    assert (limits.memory_mb, limits.device_limit_mb) == (128, 4096)


def test_version_changes_when_any_file_changes(make_problem: MakeProblem) -> None:
    folder = make_problem()
    before = load_problem(folder).version
    (folder / "cases.py").write_text((folder / "cases.py").read_text() + "\n# edit\n")
    assert load_problem(folder).version != before


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('tier = "browser"', 'tier = "gpu"', "tier"),
        ('slug = "add"', 'slug = "Add Me"', "slug"),
        ('slug = "add"', 'slug = "other"', "slug"),
        ("points = 10", "points = -1", "points"),
        ("points = 10", 'points = "ten"', "points"),
        ("time_per_case_s = 2.0", "time_per_case_s = 0", "limits.time_per_case_s"),
        ("total_time_s = 10.0", "total_time_s = 1.0", "limits.total_time_s"),
        ('names = ["add"]', "names = []", "submission.names"),
        ('names = ["add"]', 'names = ["not valid"]', "submission.names"),
        ('kind = "value"', 'kind = "fuzzy"', "checker.kind"),
        ('kind = "value"', 'kind = "value"\nrel_tol = -1', "checker.rel_tol"),
        ('kind = "value"', 'kind = "value"\ntolerance = 1', "checker.tolerance"),
        ('en = "Addition"', 'en = ""', "title.en"),
        ("memory_mb = 128", "", "limits.memory_mb"),
        ("memory_mb = 128", "memory_mb = 128\ndevice_memory_mb = 8", "limits.device_memory_mb"),
        ("memory_mb = 128", 'memory_mb = 128\ndevice_memory_mb = "4G"', "limits.device_memory_mb"),
        # The checkpoints a torch problem's cases load: none for a browser-tier problem, each
        # once, each a checkpoint's name, in a list.
        ('tags = ["test"]', 'tags = ["test"]\nmodels = ["qwen3-gqa"]', "models"),
        ('tier = "browser"', 'tier = "torch"\nmodels = ["qwen3-gqa", "qwen3-gqa"]', "models"),
        ('tier = "browser"', 'tier = "torch"\nmodels = ["../etc"]', "models"),
        ('tier = "browser"', 'tier = "torch"\nmodels = "qwen3-gqa"', "models"),
    ],
)
def test_invalid_problem_toml_names_file_and_field(
    make_problem: MakeProblem, old: str, new: str, field: str
) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    assert old in text
    folder = make_problem(toml=text.replace(old, new))
    with pytest.raises(SpecError) as info:
        load_problem(folder)
    assert info.value.field == field
    assert str(info.value).startswith("problems/add/problem.toml: " + field)


def test_broken_toml_syntax_is_reported_with_the_file(make_problem: MakeProblem) -> None:
    folder = make_problem(toml="slug = [unclosed")
    with pytest.raises(SpecError, match=r"problems/add/problem.toml: invalid TOML"):
        load_problem(folder)


@pytest.mark.parametrize("name", ["reference.py", "cases.py", "statement.zh.md", "starter.py"])
def test_missing_file_is_named(make_problem: MakeProblem, name: str) -> None:
    folder = make_problem(files={name: None})
    with pytest.raises(SpecError, match=f"add/{name}: missing file"):
        load_problem(folder)


def test_non_utf8_file_is_named(make_problem: MakeProblem) -> None:
    folder = make_problem()
    (folder / "statement.en.md").write_bytes(b"\xff\xfe bad")
    with pytest.raises(SpecError, match=r"statement\.en\.md: not UTF-8"):
        load_problem(folder)


def test_wrong_solution_without_expect_header_is_an_error(make_problem: MakeProblem) -> None:
    """More malformed headers: tests/judge/test_selfcheck.py."""
    folder = make_problem(files={"solutions/wrong/bad.py": "def add(a, b):\n    return 0\n"})
    with pytest.raises(SpecError, match=r"bad\.py: expect: first line must be '# expect: VERDICT"):
        load_problem(folder).wrong_solutions()


def test_wrong_solution_with_unknown_verdict_is_an_error(make_problem: MakeProblem) -> None:
    folder = make_problem(files={"solutions/wrong/bad.py": "# expect: FAIL at case small\n"})
    with pytest.raises(SpecError, match="unknown verdict 'FAIL'"):
        load_problem(folder).wrong_solutions()


@pytest.mark.parametrize(
    ("cases_py", "message"),
    [
        (
            "def public_cases(): return []\ndef run(s, a): pass\n",
            "generated_cases: must be defined",
        ),
        (
            "def public_cases(): return {}\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "must return a list",
        ),
        (
            "def public_cases(): return [{'name': 'a'}]\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "with 'name' and 'args'",
        ),
        (
            "def public_cases(): return [{'name': 'A B', 'args': 1}]\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "must match",
        ),
        (
            "def public_cases(): return [{'name': 'a', 'args': 1}] * 2\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "duplicate case name",
        ),
        (
            "def public_cases(): return [{'name': 'a', 'args': {1, 2}}]\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "args must be JSON data",
        ),
        (
            "def public_cases(): return [{'name': 'a', 'args': 1, 'check': {'kind': 'nope'}}]\ndef generated_cases(r): return []\ndef run(s, a): pass\n",
            "must be one of",
        ),
    ],
)
def test_invalid_cases_py_is_reported(
    make_problem: MakeProblem, cases_py: str, message: str
) -> None:
    problem = load_problem(make_problem(files={"cases.py": cases_py}))
    with pytest.raises(SpecError, match=message):
        build_cases(problem, None)


def test_generated_cases_depend_on_the_seed_and_only_public_seed_cases_are_public(
    make_problem: MakeProblem,
) -> None:
    problem = load_problem(make_problem())
    public = build_cases(problem, None)
    assert public == build_cases(problem, PUBLIC_SEED)
    secret = build_cases(problem, 987654321)
    assert [c.args for c in secret[2:]] != [c.args for c in public[2:]]
    assert all(c.public for c in public)
    assert [c.public for c in secret] == [True, True] + [False] * 5


def test_unknown_slug_suggests_the_closest(make_problem: MakeProblem) -> None:
    root = make_problem().parent
    with pytest.raises(UnknownProblem, match="did you mean 'add'"):
        ProblemSet(root).get("ad")


def test_a_problem_set_loads_an_unchanged_problem_once_and_an_edited_one_again(
    make_problem: MakeProblem,
) -> None:
    folder = make_problem()
    problems = ProblemSet(folder.parent)
    first = problems.get("add")
    assert problems.get("add") is first
    (folder / "cases.py").write_text((folder / "cases.py").read_text() + "\n# edit\n")
    edited = problems.get("add")
    assert edited.version != first.version
    (folder / "extra.txt").write_text("a new file is an edit too")
    assert problems.get("add").version != edited.version


def test_missing_problems_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="problems folder not found"):
        ProblemSet(tmp_path / "nowhere")


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_difficulty_is_read_from_problem_toml(make_problem: MakeProblem, level: str) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    problem = load_problem(
        make_problem(toml=text.replace("points = 10", f'points = 10\ndifficulty = "{level}"'))
    )
    assert problem.difficulty == level
    assert problem.summary()["difficulty"] == level


def test_a_problem_without_difficulty_has_none(make_problem: MakeProblem) -> None:
    assert load_problem(make_problem()).difficulty is None


@pytest.mark.parametrize("value", ['"Easy"', '"trivial"', '""', "2", '["easy"]'])
def test_an_unknown_difficulty_names_the_field_and_the_choices(
    make_problem: MakeProblem, value: str
) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    folder = make_problem(toml=text.replace("points = 10", f"points = 10\ndifficulty = {value}"))
    with pytest.raises(SpecError) as info:
        load_problem(folder)
    assert info.value.field == "difficulty"
    assert str(info.value).endswith('must be one of "easy", "medium", "hard"')


def test_section_names_the_chapter_section_a_problem_practises(make_problem: MakeProblem) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    problem = load_problem(
        make_problem(toml=text.replace("points = 10", 'points = 10\nsection = "memory"'))
    )
    assert problem.section == "memory"
    assert load_problem(make_problem()).section is None


@pytest.mark.parametrize("value", ['"KV Memory"', '""', "3"])
def test_a_malformed_section_is_a_spec_error_naming_section(
    make_problem: MakeProblem, value: str
) -> None:
    text = TOML.format(slug="add", per_case=2.0, total=10.0)
    folder = make_problem(toml=text.replace("points = 10", f"points = 10\nsection = {value}"))
    with pytest.raises(SpecError) as info:
        load_problem(folder)
    assert info.value.field == "section"
