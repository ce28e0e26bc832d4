"""Verdicts: one closed set, one fixed precedence."""

from __future__ import annotations

import pytest

from judge.verdict import Verdict, overall


def test_precedence_is_ie_ce_re_mle_tle_ole_wa_ac() -> None:
    assert [v.value for v in Verdict] == ["IE", "CE", "RE", "MLE", "TLE", "OLE", "WA", "AC"]


def test_overall_is_the_most_severe() -> None:
    assert overall([Verdict.AC, Verdict.WA, Verdict.TLE]) is Verdict.TLE
    assert overall([Verdict.AC, Verdict.AC]) is Verdict.AC
    assert overall([Verdict.WA, Verdict.IE]) is Verdict.IE


def test_no_cases_is_never_accepted() -> None:
    assert overall([]) is Verdict.IE


def test_parse_accepts_case_and_whitespace_and_rejects_unknown_names() -> None:
    assert Verdict.parse(" wa ") is Verdict.WA
    with pytest.raises(ValueError, match="expected one of IE, CE"):
        Verdict.parse("PASS")
