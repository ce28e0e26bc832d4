"""`judge check` on wrong solutions: each fails where its header declares, and differs from
the reference by no more lines than it declares (judge/problem/wrong_solution.py, judge/commands/selfcheck.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from problem_factory import TOML, MakeProblem

from judge.commands.cli import main
from judge.commands.selfcheck import ProblemCheck, check_problem, diff_size
from judge.errors import SpecError
from judge.problem.spec import load_problem
from judge.problem.wrong_solution import FirstFailure
from judge.verdict import Verdict

REPO = Path(__file__).resolve().parents[2]

# A trace-checked problem: one {"op", "result", "state"} per step, as the stateful
# problems return; the op has parentheses inside, as theirs do.
COUNTER_TOML = (
    TOML.format(slug="counter", per_case=2.0, total=10.0)
    .replace('names = ["add"]', 'names = ["Counter"]')
    .replace('kind = "value"', 'kind = "exact"')
)
COUNTER_CASES = """\
def public_cases():
    return [{"name": "warm-up", "args": [1]}, {"name": "trace", "args": [1, 2, 3, 4]}]


def generated_cases(rng):
    return []


def run(sub, args):
    counter = sub.Counter()
    return [
        {"op": f"add(n=({n}))", "result": counter.add(n), "state": {"total": counter.total}}
        for n in args
    ]
"""
COUNTER_REFERENCE = """\
class Counter:
    def __init__(self):
        self.total = 0

    def add(self, n):
        self.total += n
        return self.total
"""
# Wrong from the step that adds 3 on: step 2 of case "trace".
COUNTER_WRONG = COUNTER_REFERENCE.replace("self.total += n", "self.total += n + (n == 3)")


def make_counter(make_problem: MakeProblem, header: str) -> Path:
    return make_problem(
        slug="counter",
        toml=COUNTER_TOML,
        files={
            "starter.py": "class Counter:\n    pass\n",
            "reference.py": COUNTER_REFERENCE,
            "cases.py": COUNTER_CASES,
            "solutions/wrong/minus.py": None,
            "solutions/wrong/crash.py": None,
            "solutions/wrong/off.py": header + COUNTER_WRONG,
            "solutions/wrong/never.py": (
                "# expect: CE at load\n# differs: 7 lines\nclass Nothing:\n    pass\n"
            ),
        },
    )


def failing(result: ProblemCheck) -> dict[str, str]:
    return {c.name: c.detail for c in result.checks if not c.ok}


def test_the_default_fixture_passes_the_check(make_problem: MakeProblem) -> None:
    result = check_problem(load_problem(make_problem()))
    assert failing(result) == {} and result.ok


def test_an_accepted_solution_must_be_accepted(make_problem: MakeProblem) -> None:
    """solutions/accepted/*.py: another right solution (slower, another layout) is AC, or the
    check says the problem's rules refuse an honest solution."""
    folder = make_problem(
        files={
            "solutions/accepted/by_loop.py": (
                "def add(a, b):\n    total = a\n    total += b\n    return total\n"
            ),
            "solutions/accepted/not_really.py": "def add(a, b):\n    return a + b + 1\n",
        }
    )
    result = check_problem(load_problem(folder))
    names = [c.name for c in result.checks]
    assert "by_loop.py AC" in names
    assert list(failing(result)) == ["not_really.py AC"]


def test_a_wrong_solution_failing_at_another_case_than_declared_fails_the_check(
    make_problem: MakeProblem,
) -> None:
    header = "# expect: WA at case negative\n# differs: 1 line\n"
    folder = make_problem(
        files={"solutions/wrong/minus.py": header + "def add(a, b):\n    return a - b\n"}
    )
    assert failing(check_problem(load_problem(folder))) == {
        "minus.py fails as declared": "declared WA at case negative, got WA at case small"
        " — small: values differ"
    }


def test_a_wrong_solution_with_another_verdict_at_the_declared_case_fails_the_check(
    make_problem: MakeProblem,
) -> None:
    header = "# expect: WA at case small\n# differs: 1 line\n"
    folder = make_problem(
        files={"solutions/wrong/crash.py": header + "def add(a, b):\n    return 1 // 0\n"}
    )
    detail = failing(check_problem(load_problem(folder)))["crash.py fails as declared"]
    assert detail.startswith("declared WA at case small, got RE at case small — ")


@pytest.mark.parametrize(
    "place",
    ["case trace step 2 (add(n=(3)))", "case trace step 2"],
)
def test_a_trace_failing_at_the_declared_step_passes(make_problem: MakeProblem, place: str) -> None:
    folder = make_counter(make_problem, f"# expect: WA at {place}\n# differs: 1 line\n")
    result = check_problem(load_problem(folder))
    assert failing(result) == {}
    declared = next(c for c in result.checks if c.name == "off.py fails as declared")
    assert declared.detail == "WA at case trace step 2 (add(n=(3)))"


@pytest.mark.parametrize(
    ("place", "got"),
    [
        ("case trace step 1", "WA at case trace step 2 (add(n=(3)))"),
        ("case trace step 2 (add(n=(4)))", "WA at case trace step 2 (add(n=(3)))"),
        ("case trace", "WA at case trace step 2 (add(n=(3)))"),
    ],
)
def test_a_trace_failing_at_another_step_than_declared_fails_the_check(
    make_problem: MakeProblem, place: str, got: str
) -> None:
    folder = make_counter(make_problem, f"# expect: WA at {place}\n# differs: 1 line\n")
    detail = failing(check_problem(load_problem(folder)))["off.py fails as declared"]
    assert detail.startswith(f"declared WA at {place}, got {got} — trace: step 2 (add(n=(3)))")


def test_a_wrong_solution_that_passes_the_case_it_declares_fails_the_check(
    make_problem: MakeProblem,
) -> None:
    """It is run up to its declared case and stopped there: it is AC as far as it went."""
    folder = make_counter(make_problem, "# expect: WA at case warm-up step 0\n# differs: 1 line\n")
    detail = failing(check_problem(load_problem(folder)))["off.py fails as declared"]
    assert detail == "declared WA at case warm-up step 0, got AC"


def test_a_wrong_solution_is_run_up_to_its_declared_case_and_no_further(
    make_problem: MakeProblem,
) -> None:
    """What it does after its first failure is not judged: this one would spin past the time
    limit on the case after (TLE overall, and two seconds of waiting for nothing)."""
    source = (
        "# expect: WA at case small\n# differs: 3 lines\n"
        "def add(a, b):\n"
        "    while a < 0:\n"
        "        pass\n"
        "    return a - b\n"
    )
    folder = make_problem(files={"solutions/wrong/minus.py": source})
    result = check_problem(load_problem(folder))
    assert failing(result) == {}
    declared = next(c for c in result.checks if c.name == "minus.py fails as declared")
    assert declared.detail == "WA at case small"


def test_a_declared_case_the_public_seed_lacks_fails_the_check_without_running(
    make_problem: MakeProblem,
) -> None:
    """A wrong solution must name a case the public seed has, or `at load`: the check stops
    each wrong solution at its declared case (a hidden seed's case name would never come)."""
    header = "# expect: WA at case random-9\n# differs: 1 line\n"
    folder = make_problem(
        files={"solutions/wrong/minus.py": header + "def add(a, b):\n    return a - b\n"}
    )
    detail = failing(check_problem(load_problem(folder)))["minus.py fails as declared"]
    assert detail.startswith("declares case 'random-9', which is not a case of the public seed")
    assert detail.endswith(
        "(its cases: small, negative, public-random-0, public-random-1, "
        "public-random-2, public-random-3, public-random-4)"
    )


def test_a_wrong_solution_that_loads_nothing_is_declared_at_load(
    make_problem: MakeProblem,
) -> None:
    folder = make_counter(make_problem, "# expect: WA at case trace step 2\n# differs: 1 line\n")
    result = check_problem(load_problem(folder))
    never = next(c for c in result.checks if c.name == "never.py fails as declared")
    assert never.ok and never.detail == "CE at load"


def test_a_wrong_solution_whose_diff_grew_fails_the_check(make_problem: MakeProblem) -> None:
    grown = (
        "# expect: WA at case small\n# differs: 1 line\n"
        "def helper(a):\n    return -a\n\n\ndef add(a, b):\n    return a + helper(b)\n"
    )
    folder = make_problem(files={"solutions/wrong/minus.py": grown})
    assert failing(check_problem(load_problem(folder))) == {
        "minus.py differs as declared": "3 lines of code differ from reference.py, more than"
        " the 1 declared; first: line 3: def helper(a):"
    }


def test_comments_and_blank_lines_are_not_counted_as_differing(
    make_problem: MakeProblem,
) -> None:
    commented = (
        "# expect: WA at case small\n# differs: 1 line\n# The mistake: subtracts.\n\n"
        "def add(a, b):\n\n    # should be a + b\n    return a - b\n"
    )
    folder = make_problem(files={"solutions/wrong/minus.py": commented})
    assert failing(check_problem(load_problem(folder))) == {}


def test_diff_size_counts_a_changed_added_or_removed_line_once() -> None:
    reference = "a = 1\nb = 2\nc = 3\n"
    assert diff_size(reference, reference) == (0, "")
    assert diff_size(reference, "a = 1\nb = 5\nc = 3\n") == (1, "line 2: b = 5")
    assert diff_size(reference, "a = 1\nb = 2\nx = 0\nc = 3\n")[0] == 1
    assert diff_size(reference, "a = 1\nc = 3\n") == (1, "reference.py line 2 removed: b = 2")


@pytest.mark.parametrize(
    ("header", "field", "message"),
    [
        ("def add(a, b):\n", "expect", "first line must be '# expect: VERDICT at case NAME"),
        ("# expect: WA\n# differs: 1 line\n", "expect", "says no place: add 'at case NAME'"),
        ("# expect: FAIL at case small\n# differs: 1 line\n", "expect", "unknown verdict 'FAIL'"),
        ("# expect: AC at case small\n# differs: 1 line\n", "expect", "AC is not a failure"),
        ("# expect: WA at small\n# differs: 1 line\n", "expect", "'small' must be 'case NAME'"),
        ("# expect: WA at case small step x\n# differs: 1 line\n", "expect", "must be 'case NAME"),
        ("# expect: WA at case Small\n# differs: 1 line\n", "expect", "must be 'case NAME"),
        ("# expect: WA at case small\n", "differs", "second line must be '# differs: N lines'"),
        ("# expect: WA at case small\n# differs: 0 lines\n", "differs", "by >= 1 line"),
        ("# expect: WA at case small\n# differs: two lines\n", "differs", "second line must"),
    ],
)
def test_a_malformed_header_is_a_spec_error_naming_the_file_and_field(
    make_problem: MakeProblem, header: str, field: str, message: str
) -> None:
    folder = make_problem(files={"solutions/wrong/bad.py": header + "def add(a, b):\n    pass\n"})
    with pytest.raises(SpecError) as info:
        load_problem(folder).wrong_solutions()
    assert info.value.file == "solutions/wrong/bad.py" and info.value.field == field
    assert str(info.value).startswith(f"solutions/wrong/bad.py: {field}: ")
    assert message in str(info.value)


def test_a_header_declares_verdict_case_step_and_op(make_problem: MakeProblem) -> None:
    header = "# expect: WA at case trace step 2 (add(n=(3)))\n# differs: 1 line\n"
    wrong = {
        w.path.name: w for w in load_problem(make_counter(make_problem, header)).wrong_solutions()
    }
    assert wrong["off.py"].first_failure == FirstFailure(Verdict.WA, "trace", 2, "add(n=(3))")
    assert wrong["off.py"].expect is Verdict.WA and wrong["off.py"].differs == 1
    assert wrong["never.py"].first_failure == FirstFailure(Verdict.CE)


def test_check_json_says_what_was_declared_and_what_happened(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_counter(make_problem, "# expect: WA at case trace step 1\n# differs: 1 line\n")
    code = main(["--problems", str(folder.parent), "check", "--json", "counter"])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)[0]["checks"]}
    assert code == 1
    assert checks["off.py fails as declared"]["ok"] is False
    assert checks["off.py fails as declared"]["declared"] == "expect: WA at case trace step 1"
    assert checks["off.py fails as declared"]["actual"] == (
        "expect: WA at case trace step 2 (add(n=(3)))"
    )
    assert checks["off.py differs as declared"] | {"detail": ""} == {
        "name": "off.py differs as declared",
        "ok": True,
        "detail": "",
        "declared": "differs: 1 line",
        "actual": "differs: 1 line",
    }
    assert "declared" not in checks["starter not AC"]


def test_judge_run_never_imports_difflib() -> None:
    """difflib belongs to `judge check`; the modules `judge run` loads stay free of it."""
    code = (
        "import sys, judge.commands.cli, judge.run.judge_source, judge.problem.problemset, judge.problem.spec\n"
        "sys.exit('difflib' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, timeout=60)
    assert proc.returncode == 0


# A problem with a CPU rule: one public and one generated calibrated case, whose shape is the
# same on every seed (only the numbers are drawn), as a real calibrated case's is.
CPU_RULE_TOML = TOML.format(slug="cpu-rule", per_case=5.0, total=30.0).replace(
    "memory_mb = 128", "memory_mb = 128\ncpu_vs_reference = 50.0\ncpu_slack_s = 2.0"
)
CPU_RULE_CASES = """\
def public_cases():
    return [{"name": "small", "args": [1, 2]}, {"name": "long", "args": [3, 4], "calibrated": True}]


def generated_cases(rng):
    return [{"name": "long-hidden", "args": [rng.randint(0, 9), 1], "calibrated": True}]


def run(sub, args):
    return sub.add(*args)
"""


def test_judge_check_measures_each_calibrated_case_once_whatever_the_seed(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check judges the reference on three seeds and every solution on one: the
    reference's CPU time on a calibrated case is measured once per case name, as the
    server's runner keeps it (it had been measured again for every seed: the sandboxed
    check of batched-decode spent a third of its two minutes on it)."""
    import judge.run.calibration

    measured: list[str] = []
    real = judge.run.calibration.calibrate

    def counting(problem, cases, *args, **kwargs):  # type: ignore[no-untyped-def]
        measured.extend(c.name for c in cases)
        return real(problem, cases, *args, **kwargs)

    monkeypatch.setattr(judge.run.calibration, "calibrate", counting)
    folder = make_problem(slug="cpu-rule", toml=CPU_RULE_TOML, files={"cases.py": CPU_RULE_CASES})
    result = check_problem(load_problem(folder))
    assert failing(result) == {}
    # once per name: a generated case drawn from the public seed and one from a secret
    # seed are two cases (issue 23), each measured once
    assert sorted(measured) == ["hidden-long-hidden", "long", "public-long-hidden"]


def test_judge_check_runs_a_speed_problems_timed_cases_without_pacing_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check proves verdicts: the timed cases run and are checked, and no reference is
    timed beside them (which doubled decode-throughput's and serve-engine's checks)."""
    from problem_factory import write_files, write_paced_problem

    import judge.run.pacer

    def no_pacer(*args: object, **kwargs: object) -> None:
        raise AssertionError("judge check paced a timed case")

    monkeypatch.setattr(judge.run.pacer, "Pacer", no_pacer)
    folder = write_paced_problem(tmp_path / "problems")
    write_files(
        folder,
        {
            "solutions/wrong/minus.py": "# expect: WA at case check\n# differs: 3 lines\n"
            "import time\n\n\ndef total(a, n):\n    return a - n\n",
            "solutions/wrong/crash.py": "# expect: RE at case check\n# differs: 3 lines\n"
            "import time\n\n\ndef total(a, n):\n    return 1 // 0\n",
        },
    )
    result = check_problem(load_problem(folder))
    assert failing(result) == {}, failing(result)


def test_the_determinism_check_takes_the_references_judged_run_as_its_second_run(
    make_problem: MakeProblem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference's judged run on the public seed is a second run of it (in a child): when
    it answered every case identically, nothing is computed a third time."""
    from judge.kinds import code_proof
    from judge.problem.cases import PUBLIC_SEED, build_cases
    from judge.run.judge_source import TrustedInputs, run_reference

    problem = load_problem(make_problem())
    cases = build_cases(problem, PUBLIC_SEED)
    answers = run_reference(problem, cases)
    runs: list[str] = []

    def counted(*args: object) -> dict[str, object]:
        runs.append("run")
        return run_reference(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(code_proof, "run_reference", counted)
    first = TrustedInputs(cases, answers)
    assert code_proof._determinism(problem, first, dict(answers)).ok
    assert runs == []
    # A judged run that answered otherwise (or not at all) is no proof: the reference runs again.
    other = dict(answers) | {cases[0].name: "something else"}
    assert code_proof._determinism(problem, first, other).ok
    assert code_proof._determinism(problem, first, {}).ok
    assert runs == ["run", "run"]
