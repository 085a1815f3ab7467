"""No code from data: nothing a user supplies is evaluated, executed or unpickled."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT

from lextrace.dsl import codegen, scenario_fast

PACKAGES = ("dsl", "lextrace", "verify", "statute")


def calls_and_imports() -> list[tuple[str, int, str]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    found.append((str(path.relative_to(ROOT)), node.lineno, node.func.id))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    owner = node.func.value
                    prefix = owner.id + "." if isinstance(owner, ast.Name) else ""
                    found.append(
                        (str(path.relative_to(ROOT)), node.lineno, prefix + node.func.attr)
                    )
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names]
                    module = getattr(node, "module", None) or ""
                    for name in [module, *names]:
                        found.append((str(path.relative_to(ROOT)), node.lineno, "import " + name))
    return found


def test_no_eval_no_pickle_and_one_exec_of_generated_source() -> None:
    found = calls_and_imports()
    # The three generators: the fast path of the rules, that of scenario validation and the
    # compiled kernel of the columnar engine.
    generators = ("dsl/codegen.py", "dsl/kernel.py", "dsl/scenario_fast.py")
    assert not [f for f in found if f[2] in ("eval", "compile") and f[0] not in generators]
    assert not [f for f in found if "pickle" in f[2] or "shelve" in f[2] or "dill" in f[2]]
    execs = [f for f in found if f[2] == "exec"]
    assert [f[0] for f in execs] == list(generators)


def test_yaml_is_read_with_the_safe_loader_only() -> None:
    found = calls_and_imports()
    loads = [f for f in found if f[2] in ("yaml.load", "yaml.unsafe_load", "yaml.full_load")]
    assert [f[0] for f in loads] == ["dsl/scenario.py"]
    source = (ROOT / "dsl" / "scenario.py").read_text(encoding="utf-8")
    assert "class ExactLoader(yaml.SafeLoader)" in source
    assert "Loader=_yaml_loader()" in source


@pytest.mark.parametrize("text", ["x); import os", "a b", "'quoted'", "1abc", "é"])
def test_generated_source_admits_plain_identifiers_only(text: str) -> None:
    with pytest.raises(codegen.Unsupported):
        codegen._identifier(text)
    with pytest.raises(codegen.Unsupported):
        scenario_fast._quoted(text)
    assert codegen._identifier("per_job_new") == "per_job_new"
    assert scenario_fast._quoted("per_job_new") == "'per_job_new'"


KERNEL_NAME = re.compile(r"(v|x|r|b|o)\d+|f\d+_\d+|o\d+_[qrd]|size|deferred|i|q")


@pytest.mark.parametrize("encoding", ["nj-34-1b-343", "nsw-cgr-2020-cl-5", "usc-26-132-c"])
def test_the_compiled_kernel_holds_no_name_or_text_of_the_encoding(encoding: str) -> None:
    """The kernel's source is made of numbers and of names the translation makes up: no name,
    member, citation or text of the encoding reaches it (inputs are passed by position)."""
    from lextrace import load_statute
    from lextrace.dsl import columnar, kernel

    statute = load_statute(ROOT / "statute" / f"{encoding}.lex")
    engine = columnar.Engine(statute.ast, statute.select_readings())
    layouts = {
        name: kernel._default_layout(declared)
        for name, declared in statute.ast.inputs.items()
        if declared.type.kind != "list"
    }
    text = kernel._Translation(engine, layouts).source()[0]
    body = ast.parse(text.split("def kernel(", 1)[1].join(["def kernel(", ""]))
    helpers = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    allowed = helpers | {"int", "abs", "float", "range", "True", "False"}
    names = {n.id for n in ast.walk(body) if isinstance(n, ast.Name)}
    assert names and not {n for n in names if n not in allowed and not KERNEL_NAME.fullmatch(n)}
    strings = [n.value for n in ast.walk(body) if isinstance(n, ast.Constant)]
    assert all(isinstance(value, int) for value in strings)  # bools and ints only
    for name in statute.ast.inputs:
        assert name not in text


def test_the_docs_build_only_evaluates_scenarios() -> None:
    # The site generator reads scenarios through the validating reader and evaluates them with
    # the statute's rules; it imports nothing from the scenario or the encoding.
    for path in sorted((ROOT / "lextrace" / "site").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            n.func.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        assert not names & {"eval", "exec", "compile", "__import__"}, path.name
    assert Path(ROOT / "mkdocs.yml").read_text(encoding="utf-8").count("hooks:") == 1
