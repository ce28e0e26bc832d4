"""The message catalog: every sentence in both languages, and reports that carry it as data."""

from __future__ import annotations

import json
import re

from problem_factory import MakeProblem

from judge.browser.bundle import public_bundle
from judge.browser.public_run import run_public
from judge.grading.report import CaseResult, Report
from judge.messages import CATALOG, Message, case_message, raw, recognise, render, say
from judge.problem.checkers import CheckSpec, check
from judge.problem.spec import load_problem

FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


# Messages whose arguments are already one per language: a problem's own reason for
# refusing a learner's input, written by the problem in English and in Chinese.
PER_LANGUAGE = {"input.both": ({"en"}, {"zh"})}


def test_every_message_has_english_and_chinese_with_the_same_arguments() -> None:
    for key, texts in CATALOG.items():
        assert set(texts) == {"en", "zh"}, key
        fields = (set(FIELD.findall(texts["en"])), set(FIELD.findall(texts["zh"])))
        assert fields == PER_LANGUAGE.get(key, (fields[0], fields[0])), key
        # Only {name} fields: the browser substitutes them exactly as Python does.
        assert texts["en"].count("{") == len(FIELD.findall(texts["en"])), key


def test_chinese_messages_are_written_in_chinese() -> None:
    same = {k for k, t in CATALOG.items() if t["en"] == t["zh"]}
    # Text that is already whole, Python's own name for None and JSON's for null, and a
    # join of two parts already in their language.
    assert same == {"raw", "kind.none", "input.type_null", "input.either"}


def test_a_trace_mismatch_reads_naturally_in_both_languages() -> None:
    expected = [{"op": "alloc(1)", "result": [0]}, {"op": "free(1)", "result": None}]
    got = [{"op": "alloc(1)", "result": [0]}, {"op": "free(1)", "result": [3]}]
    mismatch = check(got, expected, CheckSpec("value"))
    assert mismatch is not None
    said = mismatch.message(reveal=True, with_values=False)
    assert said.en == "step 1 (free(1)) at [1]['result']: expected None, got a list"
    assert said.render("zh") == "第 1 步（free(1)），[1]['result'] 处：期望 None，实际是 list"


def test_a_case_result_keeps_english_text_and_adds_the_key_and_arguments() -> None:
    said = say("check.tolerance", rel="1e-09", abs="0")
    case = CaseResult.saying(said, name="a", public=True, verdict=None)
    data = json.loads(json.dumps(case.to_dict()))
    assert data["message"] == "outside the tolerance (rel 1e-09, abs 0)"
    assert data["message_key"] == "check.tolerance"
    assert data["message_args"] == {"rel": "1e-09", "abs": "0"}
    assert case_message(data, "zh") == "超出容差（相对 1e-09，绝对 0）"
    assert CaseResult.from_dict(data) == case


def test_a_stored_message_the_catalog_does_not_know_is_shown_as_stored() -> None:
    assert render("old text", None, None, "zh") == "old text"
    assert render("old text", "no.such.key", {}, "zh") == "old text"
    assert render("old text", "check.tolerance", {"rel": "1"}, "zh") == "old text"  # abs missing
    nested = {"text": {"key": "nope", "args": {}}}
    assert render("old text", "check.with_detail", nested, "zh") == "old text"


def test_session_text_is_recognised_as_its_message() -> None:
    said = recognise("printed more than 1048576 bytes", ("case.printed_too_much",))
    assert said == Message("case.printed_too_much", (("limit", "1048576"),))
    assert said.render("zh") == "输出超过了 1048576 字节"
    assert recognise("ZeroDivisionError: x", ("case.printed_too_much",)) == raw(
        "ZeroDivisionError: x"
    )


def test_a_browser_run_report_carries_messages_a_chinese_reader_can_render(
    make_problem: MakeProblem,
) -> None:
    bundle = json.dumps(public_bundle(load_problem(make_problem())))
    report = json.loads(run_public(bundle, "def add(a, b):\n    return a - b\n"))
    failed = [c for c in report["cases"] if c["verdict"] == "WA"]
    assert failed and all(c["message_key"] for c in failed)
    assert all(case_message(c, "en") == c["message"] for c in failed)
    assert any(case_message(c, "zh") != c["message"] for c in failed)
    assert Report.from_dict(report).to_dict()["cases"] == report["cases"]


def test_a_missing_name_is_a_compile_error_with_its_message_in_both_languages(
    make_problem: MakeProblem,
) -> None:
    bundle = json.dumps(public_bundle(load_problem(make_problem())))
    report = json.loads(run_public(bundle, "x = 1\n"))
    error = report["compile_error"]
    assert error["message"] == "the submission must define add"
    assert render(error["message"], error["message_key"], error["message_args"], "zh") == (
        "提交的代码必须定义 add"
    )


def test_the_browser_gets_every_message_a_report_can_carry_but_no_text_art() -> None:
    from judge.messages import catalog_json

    embedded = json.loads(catalog_json())
    assert embedded.keys() == {k for k in CATALOG if not k.startswith("picture.")}
    assert all(embedded[k] == CATALOG[k] for k in embedded)
