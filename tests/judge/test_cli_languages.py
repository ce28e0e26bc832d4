"""Every core command speaks the reader's language: `--lang zh|en`, else LC_ALL / LANG
(zh_* is Chinese), for its own lines, its hints and its usage errors; --json never."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from problem_factory import MakeProblem

from judge.commands.cli import Invocation, main


@pytest.fixture
def root(make_problem: MakeProblem) -> Path:
    return make_problem().parent


def chinese_by(how: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ask for Chinese through the environment or through the flag (with an English LANG)."""
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8" if how == "LANG" else "en_US.UTF-8")
    return [] if how == "LANG" else ["--lang", "zh"]


def cli(root: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--problems", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


HOW = pytest.mark.parametrize("how", ["LANG", "--lang"])


@HOW
def test_list_in_chinese_has_chinese_headers(
    root: Path, how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(root, ["list", *chinese_by(how, monkeypatch)], capsys)
    assert code == 0 and out.split()[:5] == ["题目", "类型", "层级", "分值", "标题"]


@HOW
def test_show_in_chinese_frames_the_statement_in_chinese(
    root: Path, how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(root, ["show", "add", *chinese_by(how, monkeypatch)], capsys)
    assert code == 0 and "每个用例 2 秒" in out and "需要定义：add" in out and "返回" in out
    assert "points" not in out and "define:" not in out


@HOW
def test_init_in_chinese_says_what_it_wrote_and_the_command_as_typed(
    root: Path,
    tmp_path: Path,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    typed = Invocation("python practice/judge.py")
    args = ["--problems", str(root), "init", "add", str(tmp_path), *chinese_by(how, monkeypatch)]
    assert main(args, invocation=typed) == 0
    run = f"python practice/judge.py --problems {root} run add {tmp_path / 'add.py'}"
    assert capsys.readouterr().out.strip() == f"已写入 {tmp_path / 'add.py'}；用这条命令判题：{run}"
    assert main(args, invocation=typed) == 2
    assert "已经存在；要覆盖它请加 --force" in capsys.readouterr().err


@HOW
def test_check_in_chinese_has_chinese_headers_and_results(
    root: Path, how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(root, ["check", *chinese_by(how, monkeypatch)], capsys)
    assert code == 0 and out.split()[:3] == ["题目", "检查", "详情"]
    assert "通过" in out and "FAIL" not in out and "1/1 道题通过自检" in out


@HOW
def test_run_in_chinese_says_its_verdict_in_chinese(
    root: Path,
    tmp_path: Path,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wrong = tmp_path / "add.py"
    wrong.write_text("def add(a, b):\n    return a - b\n")
    code, out, _ = cli(root, ["run", "add", str(wrong), *chinese_by(how, monkeypatch)], capsys)
    assert code == 1 and "答案错误" in out


@HOW
def test_an_unknown_problem_is_said_in_chinese_with_its_suggestion_and_the_typed_command(
    root: Path, how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = Invocation("python practice/judge.py")
    args = ["--problems", str(root), "show", "adx", *chinese_by(how, monkeypatch)]
    assert main(args, invocation=typed) == 2
    assert capsys.readouterr().err == (
        "judge: 没有题目 'adx'（你是不是想找 'add'？）；"
        "`python practice/judge.py list` 会列出所有题目\n"
    )


@HOW
def test_usage_errors_are_framed_in_chinese(
    root: Path,
    tmp_path: Path,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lang = chinese_by(how, monkeypatch)
    code, _, err = cli(root, ["run", "add", str(tmp_path / "none.py"), *lang], capsys)
    assert code == 2 and err == f"judge: {tmp_path / 'none.py'}：没有这个文件\n"
    code, _, err = cli(root, ["init", "add", str(tmp_path / "none"), *lang], capsys)
    assert code == 2 and err == f"judge: {tmp_path / 'none'} 不是文件夹\n"
    code, _, err = cli(root, ["list", "--bogus", *lang], capsys)  # argparse's own error
    assert code == 2 and "（用法见 `judge --help`）" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "english"),
    [
        (["list"], "problem"),
        (["show", "add"], "define: add"),
        (["check"], "1/1 problems pass"),
        (["show", "adx"], "unknown problem 'adx'"),
        (["list", "--bogus"], "(see `judge --help`)"),
    ],
)
def test_lang_en_wins_over_a_chinese_environment(
    root: Path,
    args: list[str],
    english: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    _, out, err = cli(root, [*args, "--lang", "en"], capsys)
    assert english in out + err
    assert not any("\u4e00" <= c <= "\u9fff" for c in (out + err).replace("加法", ""))


def test_lang_en_wins_over_a_chinese_lang_for_init(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _ = cli(root, ["init", "add", str(tmp_path), "--lang", "en"], capsys)
    assert code == 0 and out.startswith(f"wrote {tmp_path / 'add.py'}; judge it with: ")


@pytest.mark.parametrize("args", [["list", "--json"], ["check", "--json"]])
def test_json_output_is_the_same_in_every_language(
    root: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    _, english, _ = cli(root, args, capsys)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    _, by_env, _ = cli(root, args, capsys)
    _, by_flag, _ = cli(root, [*args, "--lang", "zh"], capsys)
    assert json.loads(english) == json.loads(by_env) == json.loads(by_flag)
