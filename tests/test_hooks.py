"""The shipped pre-commit hooks (.pre-commit-hooks.yaml), run by `pre-commit run` from this
checkout's working tree on a sample repository that holds an encoding: they pass on the bundled
statute and fail on a broken copy of it; and which encodings a change concerns."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from lextrace.hooks import encodings, main

ROOT = Path(__file__).resolve().parent.parent
ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def sample(tmp_path: Path, broken: bool) -> Path:
    repo = tmp_path / ("broken" if broken else "sample")
    (repo / "statutes").mkdir(parents=True)
    for suffix in (".lex", ".txt"):
        shutil.copy(ROOT / "statute" / f"nj-34-1b-343{suffix}", repo / "statutes")
    if broken:
        path = repo / "statutes" / "nj-34-1b-343.lex"
        path.write_text(path.read_text(encoding="utf-8").replace("$750", "$850", 1), "utf-8")
    committed(repo)
    return repo


def committed(repo: Path) -> str:
    """Makes `repo` a git repository with everything in it committed; returns the commit."""
    env = {**os.environ, **ENV}
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "s"]):
        subprocess.run(["git", *step], cwd=repo, check=True, env=env)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def shipped(tmp_path: Path) -> tuple[Path, str]:
    """A git repository holding this checkout's tracked files as they are in the working tree,
    committed: the shipped hooks as they stand, as `pre-commit try-repo` would see them."""
    shadow = tmp_path / "shadow"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # a tracked file deleted in the working tree is left out
            (shadow / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, shadow / name)
    return shadow, committed(shadow)


def run_hooks(
    repo: Path, home: Path, hooks: tuple[Path, str], *hook: str
) -> subprocess.CompletedProcess[str]:
    """Runs the shipped hooks (or only `hook`) on every file of `repo`, configured as a user
    configures them: the hooks' repository at a revision. Runs sharing `home` install the hooks'
    environment once."""
    shadow, rev = hooks
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {shadow}\n    rev: {rev}\n"
        "    hooks: [{id: lextrace-check}, {id: lextrace-verify}]\n",
        encoding="utf-8",
    )
    pre_commit = [sys.executable, "-m", "pre_commit", "run", *hook, "--all-files"]
    env = {**os.environ, **ENV, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(pre_commit, cwd=repo, capture_output=True, text=True, env=env)


def test_the_hooks_pass_on_the_statute_and_fail_on_a_broken_copy(tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    hooks = shipped(tmp_path)
    good = run_hooks(sample(tmp_path, broken=False), home, hooks)
    assert good.returncode == 0, good.stdout[-3000:]
    assert "lextrace check" in good.stdout and "lextrace verify" in good.stdout
    assert good.stdout.count("Passed") == 2
    # The check alone: it is the hook that must fail, and the proofs take seconds.
    bad = run_hooks(sample(tmp_path, broken=True), home, hooks, "lextrace-check")
    assert bad.returncode == 1, bad.stdout[-3000:]
    assert "lextrace check" in bad.stdout and "Failed" in bad.stdout
    assert "lextrace verify" not in bad.stdout
    assert "850" in bad.stdout  # the number check names what the words do not say
    # One environment for both runs: the hooks were installed once.
    assert len([p for p in home.iterdir() if p.is_dir() and p.name.startswith("repo")]) == 1


def test_a_change_concerns_each_encoding_once(tmp_path: Path) -> None:
    (tmp_path / "a.lex").write_text("", encoding="utf-8")
    (tmp_path / "b.lex").write_text("", encoding="utf-8")
    changed = [tmp_path / "a.txt", tmp_path / "a.lex", tmp_path / "b.lex", tmp_path / "c.txt"]
    assert encodings([str(p) for p in changed]) == [
        str(tmp_path / "a.lex"),
        str(tmp_path / "b.lex"),
    ]
    assert main(["lint"]) == 2
    assert main(["check"]) == 0  # no encoding changed: nothing to do


def test_the_action_calls_only_options_the_commands_have() -> None:
    import re

    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["encoding"]["required"] is True
    scripts = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    calls = re.findall(r"lextrace (check|verify|test|review)([^\n]*)", scripts)
    calls += [("review", line) for line in re.findall(r"args=\(review([^)]*)\)", scripts)]
    assert {command for command, _ in calls} == {"check", "verify", "test", "review"}
    for command, rest in calls:
        shown = subprocess.run(
            [sys.executable, "-m", "lextrace", command, "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for option in re.findall(r"--[a-z][a-z-]*", rest):
            assert option in shown, (command, option)
