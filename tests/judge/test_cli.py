"""The `judge` command line: every command, every exit code, every bad input."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from problem_factory import MakeProblem

from judge.commands import cli
from judge.commands.cli import Command, Invocation, main
from judge.problem.device import DevicePolicy
from judge.run.launch import LocalLauncher


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def root(make_problem: MakeProblem) -> Path:
    return make_problem().parent


@pytest.fixture
def solution(tmp_path: Path) -> Path:
    path = tmp_path / "add.py"
    path.write_text("def add(a, b):\n    return a + b\n")
    return path


def test_list_shows_every_problem(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--problems", str(root), "list"], capsys)
    assert code == 0
    assert "add" in out and "Addition" in out


def test_list_json_is_machine_readable(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--problems", str(root), "list", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data[0]["slug"] == "add" and data[0]["tier"] == "browser"


@pytest.mark.parametrize(
    ("lang", "text", "define"), [("zh", "返回", "需要定义：add"), ("en", "Return", "define: add")]
)
def test_show_prints_the_statement_and_its_framing_in_the_chosen_language(
    root: Path, capsys: pytest.CaptureFixture[str], lang: str, text: str, define: str
) -> None:
    code, out, _ = run_cli(["--problems", str(root), "show", "add", "--lang", lang], capsys)
    assert code == 0 and text in out and define in out


def test_show_json_holds_statement_and_starter(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(
        ["--problems", str(root), "show", "add", "--json", "--lang", "en"], capsys
    )
    data = json.loads(out)
    assert (
        code == 0
        and data["statement"].startswith("# Addition")
        and "raise NotImplementedError" in data["starter"]
    )


def test_unknown_slug_is_one_line_with_a_suggestion_and_exit_2(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["--problems", str(root), "show", "adx"], capsys)
    assert code == 2 and out == ""
    assert (
        err.strip()
        == "judge: unknown problem 'adx' (did you mean 'add'?); `judge list` shows them all"
    )


def test_init_writes_the_starter_and_refuses_to_overwrite(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, _ = run_cli(["--problems", str(root), "init", "add", str(tmp_path)], capsys)
    target = tmp_path / "add.py"
    assert code == 0 and target.read_text().startswith("def add")
    target.write_text("# my work\n")
    code, _, err = run_cli(["--problems", str(root), "init", "add", str(tmp_path)], capsys)
    assert code == 2 and "already exists" in err and target.read_text() == "# my work\n"
    code, _, _ = run_cli(["--problems", str(root), "init", "add", str(tmp_path), "--force"], capsys)
    assert code == 0 and target.read_text().startswith("def add")


@pytest.mark.parametrize(
    ("orig_argv", "argv", "command", "pip", "make"),
    [
        (
            ["python", "judge.py", "list"],
            ["judge.py", "list"],
            "python judge.py",
            "python -m pip",
            "make",
        ),
        (
            ["python3", "practice/judge.py", "list"],
            ["practice/judge.py", "list"],
            "python3 practice/judge.py",
            "python3 -m pip",
            "make -C practice",
        ),
        (
            ["python", "/home/me/practice/judge.py", "list"],
            ["/home/me/practice/judge.py", "list"],
            "python practice/judge.py",
            "python -m pip",
            "make -C practice",
        ),
        (
            ["python", "-X", "dev", "./judge.py"],
            ["./judge.py"],
            "python -X dev judge.py",
            "python -X dev -m pip",
            "make",
        ),
        (
            ["python", "-m", "judge.commands.cli", "list"],
            ["/home/me/judge/cli.py", "list"],
            "python -m judge.commands.cli",
            "python -m pip",
            "make",
        ),
        (
            ["/usr/bin/python3", "/nowhere/bin/judge", "list"],
            ["/nowhere/bin/judge", "list"],
            "/nowhere/bin/judge",
            "pip",
            "make",
        ),
        (["python", "-c", "..."], ["-c"], "judge", "pip", "make"),
    ],
)
def test_the_invocation_is_read_from_the_command_line_as_typed(
    orig_argv: list[str], argv: list[str], command: str, pip: str, make: str
) -> None:
    invocation = Invocation.parse(orig_argv, argv, "/home/me")
    assert (invocation.command, invocation.pip(), invocation.make()) == (command, pip, make)


def test_the_installed_command_is_named_where_path_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bin" / "judge"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    argv = [str(script), "list"]
    assert Invocation.parse(["python3", *argv], argv, "/elsewhere").command == str(script)
    monkeypatch.setenv("PATH", str(script.parent))
    assert Invocation.parse(["python3", *argv], argv, "/").command == "judge"


def test_init_names_the_next_command_as_this_one_was_typed(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: it always said `judge run ...`, which a reader of the handbook who typed
    `python practice/judge.py` does not have; and it left out the --problems folder."""
    typed = Invocation("python practice/judge.py")
    code = main(["--problems", str(root), "init", "add", str(tmp_path)], invocation=typed)
    out = capsys.readouterr().out
    expected = f"python practice/judge.py --problems {root} run add {tmp_path / 'add.py'}"
    assert code == 0 and out.strip().endswith(f"judge it with: {expected}")


def test_hints_in_errors_name_commands_as_this_one_was_typed(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = Invocation("python practice/judge.py")
    code = main(["--problems", str(root), "show", "adx"], invocation=typed)
    err = capsys.readouterr().err
    assert code == 2 and "`python practice/judge.py list` shows them all" in err
    assert main(["--problems", str(root), "lst"], invocation=typed) == 2
    assert "(see `python practice/judge.py --help`)" in capsys.readouterr().err


def test_needs_pytorch_names_the_pip_and_make_of_this_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "torch_installed", lambda: False)
    typed = Invocation.parse(["python", "practice/judge.py"], ["practice/judge.py"], str(tmp_path))
    (tmp_path / "x.py").write_text("")
    code = main(["run", "attention-decode", str(tmp_path / "x.py")], invocation=typed)
    err = capsys.readouterr().err
    assert code == 2
    assert "python -m pip install torch==2.13.0 (or `make -C practice setup`)" in err


def test_a_reader_who_leaves_early_is_exit_141_without_a_traceback(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process: stdout raises BrokenPipeError as a closed pipe does (tests/test_entry_point.py
    closes real pipes)."""

    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            raise io.UnsupportedOperation("fileno")

    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["--problems", str(root), "list"]) == cli.EXIT_READER_LEFT == 141
    assert capsys.readouterr().err == ""


def test_init_into_a_missing_folder_is_exit_2(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["--problems", str(root), "init", "add", str(tmp_path / "nope")], capsys)
    assert code == 2 and "is not a folder" in err


def test_run_accepted_exits_0_with_a_table(
    root: Path, solution: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["--problems", str(root), "run", "add", str(solution)], capsys)
    assert code == 0
    assert "AC  Accepted: 7/7 cases passed" in out
    assert "without a sandbox" in err


def test_run_wrong_answer_exits_1_and_shows_the_first_failure(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    code, out, _ = run_cli(["--problems", str(root), "run", "add", str(wrong)], capsys)
    assert code == 1
    assert "first failure: small" in out and "got:      2" in out and "expected: 3" in out


def test_run_shows_the_failing_cases_input_and_how_to_get_its_test(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    code, out, _ = run_cli(["--problems", str(root), "run", "add", str(wrong)], capsys)
    assert code == 1
    failure = out.split("first failure: small")[1]
    assert "  input:\n    [1, 2]\n" in failure
    assert f"judge --problems {root} run add {wrong} --show-test small" in failure


def test_run_in_chinese_labels_the_input_in_chinese(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    _, out, _ = run_cli(["--problems", str(root), "run", "add", str(wrong)], capsys)
    assert "  输入：\n    [1, 2]\n" in out and "把它复现为测试" in out


def test_run_in_chinese_says_verdicts_messages_and_hints_in_chinese(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return [a, b]\n")
    _, out, err = run_cli(["--problems", str(root), "run", "add", str(wrong)], capsys)
    assert "第一个失败的用例：small（答案错误）" in out
    assert "期望 an int" not in out and "期望 int，实际是 list" in out
    assert "WA  答案错误：通过 0/7 个用例" in out
    assert "注意：本次运行没有沙箱" in err


def test_run_lang_flag_wins_over_the_environment_both_ways(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    _, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(wrong), "--lang", "en"], capsys
    )
    assert "first failure: small (Wrong answer)" in out and "values differ" in out
    assert "without a sandbox" in err and "答案" not in out
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    _, out, _ = run_cli(["--problems", str(root), "run", "add", str(wrong), "--lang", "zh"], capsys)
    assert "值不同" in out and "实际：" in out and "values differ" not in out


def test_run_show_test_prints_only_the_test_of_the_first_failing_public_case(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    code, out, _ = run_cli(
        ["--problems", str(root), "run", "add", str(wrong), "--show-test"], capsys
    )
    assert code == 1  # the run's verdict, as for any `judge run`
    compile(out, "test_small.py", "exec")
    assert out.startswith('"""Case "small" of add') and "args = [1, 2]" in out
    assert f"sys.path.insert(0, {str(tmp_path)!r})\nimport wrong as submission" in out
    code, named, _ = run_cli(
        ["--problems", str(root), "run", "add", str(wrong), "--show-test", "negative"], capsys
    )
    assert code == 1 and "args = [-5, 3]" in named


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("nope", "this run has no case 'nope' (its public cases: small, negative, public-random-0"),
        ("small", "case 'small' passed: a test is written for a failing case"),
    ],
)
def test_run_show_test_of_a_case_without_a_test_says_why(
    root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    says: str,
) -> None:
    half = tmp_path / "half.py"
    half.write_text("def add(a, b):\n    return a + b if a > 0 else 0\n")
    code, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(half), "--show-test", case], capsys
    )
    assert code == 2 and out == "" and says in err


def test_run_show_test_when_every_case_passes_says_there_is_none(
    root: Path, solution: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(solution), "--show-test"], capsys
    )
    assert code == 2 and out == "" and "no public case failed" in err


def test_run_json_carries_the_failing_cases_input_and_test(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def add(a, b):\n    return a * b\n")
    _, out, _ = run_cli(["--problems", str(root), "run", "add", str(wrong), "--json"], capsys)
    small = json.loads(out)["cases"][0]
    assert small["input"] == {"args": [1, 2]} and small["test"].startswith('"""Case "small"')


def test_run_syntax_error_is_ce_with_line_and_exit_1(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def add(a, b)\n    return a + b\n")
    code, out, _ = run_cli(["--problems", str(root), "run", "add", str(bad)], capsys)
    assert code == 1 and "CE  Compile error (line 1)" in out


def test_run_json_is_the_report(
    root: Path, solution: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(solution), "--json"], capsys
    )
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "AC" and report["total"] == 7 and err == ""


def test_run_prints_submission_output_without_terminal_escapes(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import sys\nsys.stdout.buffer.write(b'\\x1b[2Jhello \\xff\\n')\ndef add(a, b):\n    return a + b\n"
    )
    code, out, _ = run_cli(["--problems", str(root), "run", "add", str(noisy)], capsys)
    assert code == 0 and "hello" in out and "\x1b" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe def add", "not valid UTF-8"),
        (b"def add(a, b):\n    return a + b\0\n", "NUL byte"),
        (b"#" * (70 * 1024), "the limit is 65,536 bytes"),
        (b"   \n", "source is empty"),
    ],
)
def test_run_refuses_bad_source_with_one_line_and_exit_2(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(content)
    code, out, err = run_cli(["--problems", str(root), "run", "add", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith(f"judge: {path}:")


def test_run_missing_file_or_folder_is_exit_2(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        ["--problems", str(root), "run", "add", str(tmp_path / "none.py")], capsys
    )
    assert code == 2 and "no such file" in err
    code, _, err = run_cli(["--problems", str(root), "run", "add", str(tmp_path)], capsys)
    assert code == 2 and "is a folder" in err


def test_check_passes_a_good_problem(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--problems", str(root), "check"], capsys)
    assert code == 0 and "1/1 problems pass" in out


def test_check_fails_when_a_wrong_solution_is_accepted(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_problem(
        files={
            "solutions/wrong/minus.py": (
                "# expect: WA at case small\n# differs: 1 line\ndef add(a, b):\n    return b + a\n"
            )
        }
    ).parent
    code, out, _ = run_cli(["--problems", str(root), "check", "--json"], capsys)
    data = json.loads(out)
    assert code == 1 and data[0]["ok"] is False
    failing = [c for c in data[0]["checks"] if not c["ok"]]
    assert [c["name"] for c in failing] == ["minus.py fails as declared"]
    assert failing[0]["actual"] == "expect: AC"


def test_check_fails_when_the_starter_passes(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_problem(files={"starter.py": "def add(a, b):\n    return a + b\n"}).parent
    code, out, _ = run_cli(["--problems", str(root), "check"], capsys)
    assert code == 1 and "FAIL  starter not AC" in out


def test_check_fails_a_nondeterministic_reference(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = "import random\ndef public_cases():\n    return [{'name': 'a', 'args': 0}]\ndef generated_cases(rng):\n    return []\ndef run(sub, args):\n    return sub.add(random.random(), 0)\n"
    root = make_problem(files={"cases.py": cases}).parent
    code, out, _ = run_cli(["--problems", str(root), "check"], capsys)
    assert code == 1 and "FAIL  reference deterministic" in out


def test_check_reports_an_invalid_problem(
    make_problem: MakeProblem, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_problem(files={"solutions/wrong/minus.py": "no header\n"}).parent
    code, out, _ = run_cli(["--problems", str(root), "check"], capsys)
    assert code == 1 and "minus.py: expect: first line must be '# expect: VERDICT" in out


@pytest.mark.parametrize(
    "args",
    [[], ["frobnicate"], ["run", "add"], ["list", "--bogus"], ["show", "add", "--lang", "fr"]],
)
def test_usage_errors_are_one_line_and_exit_2(
    root: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run_cli(["--problems", str(root), *args], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("judge: ")


def test_missing_problems_folder_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["--problems", str(tmp_path / "none"), "list"], capsys)
    assert code == 2 and "problems folder not found" in err


def test_the_core_alone_has_no_sandbox_and_no_added_commands(
    root: Path, solution: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge.commands.cli names no package above it: `--sandbox`, serve, submit and runner come
    only from the entry point (practice_judge.py)."""
    for args in (["run", "--sandbox", "add", str(solution)], ["serve"], ["runner", "doctor"]):
        code, out, err = run_cli(["--problems", str(root), *args], capsys)
        assert code == 2 and out == "" and err.startswith("judge: "), args


def test_run_sandbox_judges_with_the_injected_launcher(
    root: Path, solution: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The launcher comes from the hook, made only when --sandbox is given."""
    made: list[LocalLauncher] = []

    def sandbox(policy: DevicePolicy) -> LocalLauncher:
        made.append(LocalLauncher(tmp_path))
        return made[-1]

    argv = ["--problems", str(root), "run", "--sandbox", "--json", "add", str(solution)]
    assert main(argv, sandbox=sandbox) == 0
    assert len(made) == 1 and json.loads(capsys.readouterr().out)["verdict"] == "AC"
    assert main(argv[:3] + argv[4:], sandbox=sandbox) == 0 and len(made) == 1


def test_an_added_command_parses_its_own_options_and_gets_the_problems_folder(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judge serve --port 0` reaches serve's own parser; `judge --problems DIR serve`
    passes the folder on as $JUDGE_PROBLEMS. Regression: `judge --problems DIR serve
    --port 0` was "unrecognized arguments: --port"."""
    # Set, then deleted: monkeypatch then also removes the value main sets, after the test.
    monkeypatch.setenv("JUDGE_PROBLEMS", "")
    monkeypatch.delenv("JUDGE_PROBLEMS")
    seen: list[tuple[list[str], str | None]] = []

    def serve(argv: list[str]) -> int:
        seen.append((argv, os.environ.get("JUDGE_PROBLEMS")))
        return 7

    commands = {"serve": Command("start the web platform", serve)}
    assert main(["serve", "--port", "0"], commands=commands) == 7
    assert main(["--problems", str(root), "serve", "--port", "0", "a"], commands=commands) == 7
    assert main([f"--problems={root}", "serve", "--help"], commands=commands) == 7
    assert seen == [
        (["--port", "0"], None),
        (["--port", "0", "a"], str(root)),
        (["--help"], str(root)),
    ]
    with pytest.raises(SystemExit) as info:
        main(["--help"], commands=commands)
    assert info.value.code == 0 and "start the web platform" in capsys.readouterr().out


def test_run_device_is_checked_and_a_device_that_cannot_judge_says_why(
    root: Path, solution: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(solution), "--device", "gpu"], capsys
    )
    assert code == 2 and out == ""
    assert "--device must be one of auto, cpu, cuda, not 'gpu'" in err
    code, out, err = run_cli(
        ["--problems", str(root), "run", "add", str(solution), "--device", "cuda"], capsys
    )
    assert code == 2 and out == ""
    assert "add is judged only on the CPU" in err and "Traceback" not in err
    assert (
        run_cli(["--problems", str(root), "run", "add", str(solution), "--device", "cpu"], capsys)[
            0
        ]
        == 0
    )
