"""Comparisons the declarations settle (dsl/settled.py): `jobs >= 0` on a count decides nothing."""

from __future__ import annotations

from pathlib import Path

from conftest import write_variant

from lextrace.dsl.loader import analyse

COVERED = "labor_harmony_new_jobs + labor_harmony_retained_jobs > 0 reading I8;"


def errors(path: Path) -> list[str]:
    """Returns the first line of each error `lextrace check` finds in the encoding at `path`."""
    analysis = analyse(path)
    return [d.render(analysis.source).splitlines()[0] for d in analysis.errors]


def test_a_count_compared_at_least_zero_always_holds_and_is_refused(
    tmp_path: Path, encoding_source: str
) -> None:
    # (c)(1)(j): "enters into a labor harmony agreement", the covered jobs more than none.
    variant = write_variant(tmp_path, encoding_source, COVERED, COVERED.replace("> 0", ">= 0"))
    (error,) = errors(variant)
    assert "[N.J.S.A. 34:1B-343(c)(1)(j)]" in error
    assert error.endswith(
        "'labor_harmony_new_jobs + labor_harmony_retained_jobs >= 0' in 'labor_harmony_agreement' "
        "always holds: labor_harmony_new_jobs + labor_harmony_retained_jobs is never negative, "
        "so the comparison decides nothing"
    )


def test_zero_on_the_left_and_below_zero_are_settled_too(
    tmp_path: Path, encoding_source: str
) -> None:
    flipped = COVERED.replace(
        "labor_harmony_new_jobs + labor_harmony_retained_jobs > 0",
        "0 > labor_harmony_new_jobs",
    )
    (error,) = errors(write_variant(tmp_path, encoding_source, COVERED, flipped))
    assert "'0 > labor_harmony_new_jobs' in 'labor_harmony_agreement' never holds" in error


def test_a_comparison_the_declarations_leave_open_passes(
    tmp_path: Path, encoding_source: str
) -> None:
    # A difference of counts may be negative: not settled by the declarations.
    open_ = COVERED.replace(
        "+ labor_harmony_retained_jobs > 0", "- labor_harmony_retained_jobs >= 0"
    )
    assert errors(write_variant(tmp_path, encoding_source, COVERED, open_)) == []
