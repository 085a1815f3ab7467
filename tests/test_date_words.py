"""The comparator the words attach to a date (dsl/date_words.py): "after December 31, 2017"
is `> 2017-12-31`."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from conftest import write_section_statute

from lextrace.dsl import date_words
from lextrace.dsl.loader import analyse

SUNSET = (
    "In the case of a taxable year beginning after December 31, 2017, and before January 1, "
    "2026, the credit is $2,000."
)


def write_dated(folder: Path, words: str, rule: str) -> Path:
    """Writes a one-clause statute whose one result, `credit`, is `rule` over the date input
    `year_begins`, under `words`; returns its path."""
    begins = 'input year_begins: date required "the first day of the taxable year"'
    return write_section_statute(folder, "dated", [begins], "credit", [(words, rule)])


def errors(path: Path) -> list[str]:
    """Returns each error `lextrace check` finds, rendered."""
    analysis = analyse(path)
    return [d.render(analysis.source) for d in analysis.errors]


def test_the_phrases_before_a_date_give_its_comparator() -> None:
    found = date_words.phrases(
        "beginning after December 31, 2017, on or after 1 January 2018, not later than "
        "2019-06-30, prior to March 1, 2020, from April 1, 2021"
    )
    assert [(p.day, p.op) for p in found] == [
        (datetime.date(2017, 12, 31), ">"),
        (datetime.date(2018, 1, 1), ">="),
        (datetime.date(2019, 6, 30), "<="),
        (datetime.date(2020, 3, 1), "<"),
    ]
    assert found[0].excerpt == "beginning after December 31, 2017"


def test_after_a_date_written_at_or_after_it_is_refused_at_the_date(tmp_path: Path) -> None:
    wrong = "year_begins >= 2017-12-31 and year_begins < 2026-01-01"
    (error,) = errors(write_dated(tmp_path, SUNSET, f"rule credit: money = $2,000 when {wrong};"))
    first, excerpt, caret, hint = error.splitlines()
    assert first.endswith(
        "error [Dated Act 1(a)]: 'year_begins >= 2017-12-31' in 'credit' contradicts the words "
        "of (a): “year beginning after December 31, 2017” means >"
    ), first
    assert "rule credit: money = $2,000 when year_begins >= 2017-12-31" in excerpt
    assert caret.strip() == "^" * len("2017-12-31")
    assert hint.strip() == (
        'hint: compare as the words do, or add: reviewed 2017-12-31 "why this comparison is right"'
    )


@pytest.mark.parametrize(
    "condition",
    [
        "year_begins > 2017-12-31 and year_begins < 2026-01-01",
        "2017-12-31 < year_begins and 2026-01-01 > year_begins",  # the literal on the left
        "not (year_begins <= 2017-12-31 or year_begins >= 2026-01-01)",  # under `not`
    ],
)
def test_the_comparators_the_words_give_pass(tmp_path: Path, condition: str) -> None:
    rule = f"rule credit: money = $2,000 when {condition};"
    assert errors(write_dated(tmp_path, SUNSET, rule)) == []


def test_before_a_date_written_at_or_before_it_is_refused(tmp_path: Path) -> None:
    rule = (
        "rule credit: money = $2,000 when year_begins > 2017-12-31 and year_begins <= 2026-01-01;"
    )
    (error,) = errors(write_dated(tmp_path, SUNSET, rule))
    assert "'year_begins <= 2026-01-01' in 'credit' contradicts the words of (a)" in error
    assert "“2017, and before January 1, 2026” means <" in error


def test_a_reviewed_date_and_a_date_without_a_phrase_pass(tmp_path: Path) -> None:
    reviewed = (
        "rule credit: money = $2,000 when year_begins >= 2017-12-31 and year_begins < 2026-01-01"
        ' reviewed 2017-12-31 "the year beginning on that day is the first one";'
    )
    assert errors(write_dated(tmp_path, SUNSET, reviewed)) == []
    words = "From January 1, 2024, the credit is $2,000."
    rule = "rule credit: money = $2,000 when year_begins > 2024-01-01;"
    assert errors(write_dated(tmp_path, words, rule)) == []
