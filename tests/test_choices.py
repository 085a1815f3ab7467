"""The greater or the lesser of values against the words that choose (dsl/choices.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_section_statute, write_variant

from lextrace.dsl.loader import analyse

# (c)(2): "$15 per hour or 120 percent of the minimum wage ..., whichever is higher".
WAGE_FLOOR = "max($15, 120% * state_minimum_wage)"


def errors(path: Path) -> list[str]:
    """Returns the first line and the hint of each error `lextrace check` finds."""
    analysis = analyse(path)
    return [d.render(analysis.source) for d in analysis.errors]


def write_choice_statute(folder: Path, words: str, expression: str) -> Path:
    """Writes a one-clause statute of one money result, `pay`, computed by `expression` over
    the inputs `wage` and `bonus`, under `words`; returns its path."""
    inputs = ['input wage: money = $0 "a wage"', 'input bonus: money = $0 "a bonus"']
    return write_section_statute(
        folder, "pay", inputs, "pay", [(words, f"rule pay: money = {expression};")]
    )


def test_whichever_is_higher_written_as_min_is_refused_at_the_min(
    tmp_path: Path, encoding_source: str
) -> None:
    variant = write_variant(
        tmp_path, encoding_source, WAGE_FLOOR, WAGE_FLOOR.replace("max(", "min(")
    )
    (error,) = errors(variant)
    first, excerpt, caret, hint = error.splitlines()
    assert "[N.J.S.A. 34:1B-343(c)(2)]" in first
    assert first.endswith(
        "the words of (c)(2) choose the greater value ('whichever is higher'), but "
        "'wage_floor' takes the min, and no rule of that clause takes the max"
    )
    # At the call turned around, not at the lowest wage paid (`min of hourly_wage in ...`),
    # which the same clause's "pay less than" asks for.
    assert "rule wage_floor" in excerpt
    assert caret.strip() == "^" * len(WAGE_FLOOR)
    assert hint.strip() == "hint: write max(...) where the words say 'whichever is higher'"


@pytest.mark.parametrize(
    ("words", "expression", "wanted"),
    [
        ("The pay is the lesser of the wage or the bonus.", "max(wage, bonus)", "min"),
        ("The pay is the wage or the bonus, whichever is less.", "max(wage, bonus)", "min"),
        ("The pay is the greater of the wage and the bonus.", "min(wage, bonus)", "max"),
        ("The pay is the wage or the bonus, whichever is the larger.", "min(wage, bonus)", "max"),
    ],
)
def test_each_phrase_that_chooses_refuses_the_other_choice(
    tmp_path: Path, words: str, expression: str, wanted: str
) -> None:
    (error,) = errors(write_choice_statute(tmp_path, words, expression))
    assert f"no rule of that clause takes the {wanted}" in error
    assert f"hint: write {wanted}(...) where the words say" in error


@pytest.mark.parametrize(
    ("words", "expression"),
    [
        # The choice the words make.
        ("The pay is the lesser of the wage or the bonus.", "min(wage, bonus)"),
        ("The pay is the wage or the bonus, whichever is higher.", "max(wage, bonus)"),
        # Words that choose and limit: the min may be the limit.
        (
            "The pay is the greater of the wage or the bonus, not to exceed $500.",
            "min(if wage > bonus then wage else bonus, $500)",
        ),
        # Words that choose and floor: the max may be the floor.
        (
            "The pay is the lesser of the wage or the bonus, but not less than $5.",
            "max(if wage < bonus then wage else bonus, $5)",
        ),
        # Words that choose both ways.
        (
            "The pay is the lesser of the wage or $500, or the greater of the bonus or $5.",
            "min(wage, $500) + min(bonus, $5)",
        ),
        # Words that choose nothing.
        ("The pay is the wage, but at most the bonus.", "min(wage, bonus)"),
    ],
)
def test_words_that_do_not_contradict_the_rule_pass(
    tmp_path: Path, words: str, expression: str
) -> None:
    assert errors(write_choice_statute(tmp_path, words, expression)) == []
