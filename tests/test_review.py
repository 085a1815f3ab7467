"""`lextrace review` on real git history: a temporary repository holding the bundled statute,
and one commit applying each amendment draft (statute/amendments/)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
STATUTE = ROOT / "statute"
DRAFTS = STATUTE / "amendments"
ENCODING = "statute/nj-34-1b-343.lex"


def git(repository: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repository), *arguments],
        capture_output=True,
        text=True,
        check=True,
        env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
             "HOME": str(repository), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    return done.stdout


def commit(repository: Path, source: Path, message: str) -> str:
    """Copies an encoding and its official text into the repository and commits them."""
    for suffix in (".lex", ".txt"):
        shutil.copy(source / f"nj-34-1b-343{suffix}", repository / "statute")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", message)
    return git(repository, "rev-parse", "--short", "HEAD").strip()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """base: the bundled statute; then one commit per draft, each from the base."""
    repo = tmp_path_factory.mktemp("repo")
    git(repo, "init", "-q", "-b", "main")
    (repo / "statute").mkdir()
    commit(repo, STATUTE, "the statute")
    git(repo, "tag", "base")
    for draft in ("small-business-750", "uncapped-port-bonus"):
        git(repo, "checkout", "-q", "-b", draft, "base")
        commit(repo, DRAFTS / draft, f"apply {draft}")
    git(repo, "checkout", "-q", "-b", "broken", "base")
    text = (STATUTE / "nj-34-1b-343.lex").read_text(encoding="utf-8")
    changed = text.replace("$750", "$850", 1)
    assert changed != text
    (repo / ENCODING).write_text(changed, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a number the words do not say")
    git(repo, "checkout", "-q", "main")
    return repo


def review(repository: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lextrace", "review", *arguments, "-e", ENCODING],
        capture_output=True,
        text=True,
        cwd=repository,
    )


def test_a_draft_that_keeps_every_proof_passes_with_its_word_diff_and_witnesses(
    repository: Path,
) -> None:
    done = review(repository, "base", "small-business-750", "--population",
                  str(EXAMPLES / "batch.jsonl"))  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    report = done.stdout
    assert "The review passes." in report
    assert "- **(c)(1)(e)**:" in report and "~~$500~~" in report and "**$750**" in report
    assert "| definition | `small_business_bonus` |" in report or "small_business" in report
    assert "| `annual_credit` | different |" in report
    assert "VIOLATED" not in report
    assert "### Impact" in report and "| `annual_credit` |" in report
    # Each version named as in the repository, never by where the review wrote it out.
    assert f"Impact of `{ENCODING} at small-business-750 (" in report
    assert f"Compared with `{ENCODING} at base (" in report and "lextrace-review-" not in report


def test_the_breaking_draft_fails_with_each_violation_and_its_counterexample(
    repository: Path, tmp_path: Path
) -> None:
    # One review (its proofs take seconds), rendered as each format the command prints, in a
    # process of its own as the command runs: a test worker that has run other proofs is slower.
    program = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from lextrace.review import render_markdown, review, to_json\n"
        "found = review('base', 'uncapped-port-bonus', Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "print(json.dumps({'ok': found.ok, 'json': to_json(found),"
        " 'markdown': render_markdown(found)}, ensure_ascii=False))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(repository / ENCODING), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=repository,
    )
    assert done.returncode == 0, done.stderr
    reviewed = json.loads(done.stdout)
    assert reviewed["ok"] is False  # the command exits 1 on it
    found = reviewed["json"]
    assert found["ok"] is False
    assert [c["citation"] for c in found["diff"]["clauses"]] == ["(c)(1)(s)"]
    violated = [c for c in found["verify"]["checks"] if c["status"] == "VIOLATED"]
    assert violated and all(c.get("counterexample") for c in violated)
    markdown = reviewed["markdown"]
    assert "The review **fails**." in markdown
    assert "**VIOLATED** `allowance_at_most_1000(covered=false)`" in markdown
    assert "<summary>counterexample scenario</summary>" in markdown
    assert "The evaluator gives: `area_tier` =" in markdown


def test_a_version_that_does_not_check_fails_at_its_line(repository: Path) -> None:
    done = review(repository, "base", "broken")
    assert done.returncode == 1
    assert "### Check" in done.stdout
    assert "nj-34-1b-343.lex:" in done.stdout and "850" in done.stdout
    assert "the new version does not check" in done.stdout
    # In a block (each caret under its place), at the encoding's path in the repository.
    assert f"```text\n{ENCODING}:" in done.stdout and "lextrace-review-" not in done.stdout


def test_the_working_tree_against_a_revision(repository: Path, tmp_path: Path) -> None:
    work = tmp_path / "clone"
    git(repository, "worktree", "add", "-q", str(work), "small-business-750")
    done = review(work, "base")
    assert done.returncode == 0, done.stderr
    assert "→ the working tree" in done.stdout
    same = review(work, "HEAD")
    assert "No clause's words changed." in same.stdout and "No rule changed." in same.stdout


def test_an_unknown_revision_or_file_is_bad_input(repository: Path) -> None:
    done = review(repository, "no-such-revision")
    assert done.returncode == 2
    assert "no-such-revision: no such revision in the repository" in done.stderr
    assert "Traceback" not in done.stderr
    outside = review(repository, "base", "--population", "missing.jsonl")
    assert outside.returncode == 2


def test_the_results_section_names_scenarios_one_version_refuses(tmp_path: Path) -> None:
    from lextrace import load_statute
    from lextrace.review import _results_markdown
    from lextrace.verify.diff import semantic_diff

    for suffix in (".lex", ".txt"):
        shutil.copy(STATUTE / f"nj-34-1b-343{suffix}", tmp_path)
    draft = tmp_path / "nj-34-1b-343.lex"
    text = draft.read_text(encoding="utf-8")
    widened = text.replace("count = 7 min 1 max 10", "count = 7 min 1 max 12")
    assert widened != text
    draft.write_text(widened, encoding="utf-8")
    found = semantic_diff(load_statute(STATUTE / "nj-34-1b-343.lex").ast, load_statute(draft).ast)
    markdown = _results_markdown(found)
    (line,) = [line for line in markdown.splitlines() if line.startswith("- Scenarios")]
    assert line.startswith("- Scenarios accepted now: **different**, e.g. `{")
    assert "field 'eligibility_period_years': expected a whole number at most 10" in line
    assert "refused now" not in markdown


def test_the_results_name_a_changed_default_and_their_witnesses_replay(tmp_path: Path) -> None:
    # I8's default swapped: the results that move say so (a note), and each witness carries
    # the readings it was found under, so that pasted into `lextrace explain` it gives the
    # figures the row shows.
    from lextrace import load_statute
    from lextrace.review import _results_markdown
    from lextrace.verify.diff import semantic_diff

    text = (STATUTE / "nj-34-1b-343.lex").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("  default covered-jobs "))
    covered, wide = lines[at].rstrip("\n"), lines[at + 1].rstrip(";\n")
    lines[at : at + 2] = [
        wide.replace("  alternative ", "  default ", 1) + "\n",
        covered.replace("  default ", "  alternative ", 1) + ";\n",
    ]
    swapped = "".join(lines)
    assert swapped != text
    shutil.copy(STATUTE / "nj-34-1b-343.txt", tmp_path / "nj-34-1b-343.txt")
    (tmp_path / "nj-34-1b-343.lex").write_text(swapped, encoding="utf-8")
    old, new = (
        load_statute(STATUTE / "nj-34-1b-343.lex"),
        load_statute(tmp_path / "nj-34-1b-343.lex"),
    )
    markdown = _results_markdown(semantic_diff(old.ast, new.ast, 10.0))
    assert "- Note: reading I8: its default changed from covered-jobs to business-wide" in markdown
    rows = [line for line in markdown.splitlines() if "| different |" in line]
    assert rows
    for row in rows:
        name = row.split("`")[1]
        change, witness = row.split(" | ")[2:4]
        if not witness.startswith("`{"):
            continue  # the witness of another row
        scenario = json.loads(witness.strip("`"))
        before, after = change.split(" → ")
        assert old.evaluate(scenario).to_dict()[name] == before, row
        assert new.evaluate(scenario).to_dict()[name] == after, row


def test_a_witness_found_under_a_reading_carries_it() -> None:
    from lextrace.review import _results_markdown
    from lextrace.verify.diff import Diff, ResultComparison

    found = ResultComparison(
        "per_job_new", "different", {"new_jobs": 1}, {"I8": "business-wide"}, "1.00", "2.00", 0.0
    )
    diff = Diff("a", "b", "A", "B", [], [], [found], [], [], ["reading I8: a note"], 0.0)
    markdown = _results_markdown(diff)
    assert '`{"new_jobs": 1, "readings": {"I8": "business-wide"}}`' in markdown
    assert "- Note: reading I8: a note" in markdown
