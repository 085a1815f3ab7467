"""A rule sits in words that authorise it: none in a clause all of whose words are marked."""

from __future__ import annotations

from pathlib import Path

from conftest import write_variant

from lextrace.dsl.loader import analyse

EXCEPTION = (
    "    exception wage_floor_withholds_bonuses to bonus_total priority 1 =\n"
    "      $0 when not bonuses_awarded reading I13;\n"
)
DISCRETIONARY = 'so no rule follows from this paragraph"\n'


def test_an_exception_moved_into_a_discretionary_clause_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    # (c)(3) "The authority may adopt ... criteria": its words are marked discretionary.
    moved = encoding_source.replace(EXCEPTION, "", 1)
    variant = write_variant(
        tmp_path,
        moved,
        DISCRETIONARY,
        DISCRETIONARY.rstrip("\n") + " {\n" + EXCEPTION + "  }\n",
    )
    analysis = analyse(variant)
    messages = [d.message for d in analysis.errors]
    assert (
        "exception 'wage_floor_withholds_bonuses' sits in (c)(3), all of whose words are marked "
        "discretionary: they set no rule, so none of them authorises it"
    ) in messages
    (found,) = [d for d in analysis.errors if "sits in (c)(3)" in d.message]
    assert found.clause == "N.J.S.A. 34:1B-343(c)(3)"
    assert "move it into the clause whose words state it" in (found.hint or "")
