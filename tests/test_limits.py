"""The bounds on an encoding (dsl/limits.py): size, bracket nesting, tree depth, tokens and
parse time, each refused with file:line:column, exit code 2 and no traceback; the bundled
statute and the amendment drafts are well within them, and an encoding at the depth limit
works through every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lextrace.cli import main
from lextrace.dsl import limits, loader
from lextrace.dsl.errors import EncodingError
from lextrace.dsl.parser import parse_encoding
from lextrace.statute import AMENDMENTS, BUNDLED

TINY = Path(__file__).resolve().parent / "bad_inputs" / "encoding" / "tiny.lex"
RULE = "rule per_job: money = $500"


@pytest.fixture(autouse=True)
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXTRACE_NO_CACHE", "1")


def tiny_variant(folder: Path, old: str, new: str) -> Path:
    """A copy of the tiny encoding, with its official text, with `old` replaced by `new`."""
    source = TINY.read_text("utf-8")
    assert old in source
    path = folder / "tiny.lex"
    path.write_text(source.replace(old, new, 1), "utf-8")
    (folder / "tiny.txt").write_bytes(TINY.with_suffix(".txt").read_bytes())
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err
    return code, out + err


def test_the_bundled_statute_and_the_drafts_are_within_the_limits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    drafts = sorted(AMENDMENTS.glob("*/*.lex"))
    assert len(drafts) >= 2
    for path in [BUNDLED, *drafts]:
        assert path.stat().st_size * 10 < limits.MAX_TEXT_BYTES
        code, output = run(capsys, "check", str(path), "--quiet")
        assert code == 0, output


def test_an_encoding_larger_than_the_limit_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tiny_variant(tmp_path, "# A tiny", "#" + " " * limits.MAX_TEXT_BYTES + "A tiny")
    code, output = run(capsys, "check", str(path))
    assert code == 2
    assert f"{path}:1:1: error: cannot read the encoding: it has" in output
    assert f"more than the {limits.MAX_TEXT_BYTES:,} bytes" in output
    code, output = run(capsys, "evaluate", "-", "--encoding", str(path))
    assert code == 2 and "cannot read the encoding: it has" in output


def test_an_official_text_larger_than_the_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tiny_variant(tmp_path, "# A tiny", "# A tiny")
    official = tmp_path / "huge.txt"
    official.write_bytes(b" " * limits.MAX_TEXT_BYTES + (tmp_path / "tiny.txt").read_bytes())
    code, output = run(capsys, "check", str(path), "--official", str(official))
    assert code == 2
    assert f"cannot read the official text {official}: it has" in output


def test_brackets_nested_past_the_limit_are_refused_where_the_limit_is_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 10 MB of parentheses once took minutes and more than a gigabyte (now refused by size);
    # within the size limit, the scan stops at the first one too many, before the parser runs.
    # The rule sits in two braces (the section's and its clause's).
    deep = limits.MAX_TEXT_BYTES // 3
    path = tiny_variant(tmp_path, RULE, "rule per_job: money = " + "(" * deep + "$500" + ")" * deep)
    line = next(
        n for n, text in enumerate(path.read_text("utf-8").splitlines(), 1) if "per_job:" in text
    )
    column = len("  rule per_job: money = ") + limits.MAX_NESTING - 2 + 1
    code, output = run(capsys, "check", str(path))
    assert code == 2
    assert f"{path}:{line}:{column}: error: brackets nested more than" in output


def test_brackets_in_statute_words_and_comments_do_not_count(tmp_path: Path) -> None:
    many = "(" * (limits.MAX_NESTING * 2)
    path = tiny_variant(tmp_path, "# A tiny", f"# {many}\n# A tiny")
    statute, _ = parse_encoding(path.read_text("utf-8"), str(path))
    assert statute.name == "Tiny Act 1"
    words = 'title "A tiny credit"'
    path = tiny_variant(tmp_path, words, f'title "A tiny credit {many}"')
    statute, _ = parse_encoding(path.read_text("utf-8"), str(path))
    assert statute.title.endswith(many)


def minus_signs(count: int) -> str:
    return "rule per_job: money = " + "- " * count + "$500"


def deepest_minus_chain() -> int:
    """The most minus signs the tiny encoding's rule can have within MAX_DEPTH."""
    source = TINY.read_text("utf-8")
    for count in range(limits.MAX_DEPTH, 0, -1):
        try:
            parse_encoding(source.replace(RULE, minus_signs(count)), "tiny.lex")
        except EncodingError:
            continue
        return count
    raise AssertionError("no chain of minus signs parses")


@pytest.mark.parametrize(
    "new",
    [
        pytest.param(minus_signs(5_000), id="minus signs"),
        pytest.param(RULE + " + $500" * 5_000, id="a chain of sums"),
        pytest.param(
            RULE.replace("$500", "if true then " * 500 + "$500" + " else $500" * 500), id="if"
        ),
    ],
)
def test_an_expression_nested_past_the_depth_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], new: str
) -> None:
    path = tiny_variant(tmp_path, RULE, new)
    for args in (["check", str(path)], ["evaluate", "-", "--encoding", str(path)]):
        code, output = run(capsys, *args)
        assert code == 2
        assert "levels deep" in output and f"{path}:" in output


def test_an_encoding_at_the_depth_limit_works_through_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = deepest_minus_chain()
    assert count > limits.MAX_DEPTH // 2
    path = tiny_variant(tmp_path, RULE, minus_signs(count))
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"new_jobs": 3, "small_business": True}), "utf-8")
    sign = "-" if count % 2 else ""
    assert run(capsys, "check", str(path), "--quiet")[0] == 0
    code, output = run(
        capsys, "evaluate", str(scenario), "--encoding", str(path), "--format", "json"
    )
    assert code == 0 and json.loads(output)["credit"] == f"{sign}1500.00"
    statute = loader.load(path)
    from lextrace.api import Statute

    compiled = Statute(statute)
    fast = compiled.evaluate({"new_jobs": 3, "small_business": True})
    traced = compiled.evaluate({"new_jobs": 3, "small_business": True}, trace=True)
    assert fast.values == traced.values == {"credit": 1500 * (-1 if count % 2 else 1)}
    assert traced.explain()
    code, output = run(capsys, "verify", str(path))
    assert code in (0, 1) and "checks of Tiny Act 1" in output


def test_more_tokens_than_the_limit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(limits, "MAX_TOKENS", 40)
    code, output = run(capsys, "check", str(TINY))
    assert code == 2
    assert "error: more than 40 words and symbols (the limit)" in output
    assert f"{TINY}:" in output


def test_parsing_stops_at_its_time_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(limits, "PARSE_SECONDS", -1.0)  # already spent: no timing involved
    code, output = run(capsys, "check", str(TINY))
    assert code == 2
    assert f"{TINY}:2:1: error: parsing stopped here, after -1 seconds (the limit)" in output
