"""The package's layering (``[tool.importlinter]`` in pyproject.toml, checked by import-linter) and no import cycle.

* ``lint-imports`` keeps the contracts (a violation fails with the tool's own report);
* the contract bites: the same contract, checked on the real import graph plus one ``transform -> detect`` import,
  reports exactly that import;
* every module of ``src/clinanon`` is in the graph the contracts see (a folder without ``__init__.py`` would hide
  its modules from them);
* no module-level import cycle: the strongly connected components of the graph of imports made at module level
  (grimp's graph, each import's line looked up in the importer's syntax tree) are single modules.
"""

from __future__ import annotations

import ast
import copy
import subprocess
import sys
from functools import cache
from pathlib import Path

import grimp
from importlinter import api
from importlinter.contracts.layers import LayersContract

import clinanon

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = Path(clinanon.__file__).resolve().parent


@cache
def _graph() -> grimp.ImportGraph:
    """The import graph of clinanon, as import-linter builds it (imports under ``if TYPE_CHECKING:`` count)."""
    return grimp.build_graph("clinanon", cache_dir=None)


def _path_of(module: str) -> Path:
    path = PACKAGE_DIR.joinpath(*module.split(".")[1:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _module_level_lines(path: Path) -> set[int]:
    """First lines of the import statements of ``path`` that run at import time: not inside a function or class
    body, nor under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                lines.add(node.lineno)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(node, field, []))

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return lines


def _module_level_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in graph.modules}
    for importer in graph.modules:
        lines = _module_level_lines(_path_of(importer))
        for imported in graph.find_modules_directly_imported_by(importer):
            details = graph.get_import_details(importer=importer, imported=imported)
            if any(d["line_number"] in lines for d in details):
                edges[importer].add(imported)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def _lint_imports_command() -> list[str]:
    """``lint-imports`` of the interpreter running the tests (its script beside it, else the same entry point)."""
    script = Path(sys.executable).with_name("lint-imports")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"]


def test_lint_imports_keeps_the_contracts() -> None:
    result = subprocess.run([*_lint_imports_command(), "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, f"lint-imports failed:\n{result.stdout}\n{result.stderr}"
    assert "0 broken" in result.stdout


def _layers_contract() -> LayersContract:
    config = api.read_configuration(str(ROOT / "pyproject.toml"))
    (options,) = [c for c in config["contracts_options"] if c["id"] == "layers"]
    return LayersContract(name=options["name"], session_options=config["session_options"], contract_options=options)


def test_the_layers_contract_reports_an_import_of_detect_from_transform() -> None:
    contract = _layers_contract()
    graph = _graph()
    assert contract.check(copy.deepcopy(graph), verbose=False).kept  # (import-linter checks a copy too)
    bad = copy.deepcopy(graph)
    bad.add_import(importer="clinanon.transform.engine", imported="clinanon.detect.base", line_number=1,
                   line_contents="from clinanon.detect.base import Detector")
    check = contract.check(bad, verbose=False)
    assert not check.kept
    (broken,) = check.metadata["invalid_dependencies"]
    assert (broken["importer"], broken["imported"]) == ("clinanon.transform", "clinanon.detect")
    (route,) = broken["routes"]
    assert [(link["importer"], link["imported"]) for link in route["chain"]] == [
        ("clinanon.transform.engine", "clinanon.detect.base")]


def test_every_module_is_in_the_graph_the_contracts_check() -> None:
    on_disk = {".".join(("clinanon", *p.relative_to(PACKAGE_DIR).with_suffix("").parts)).removesuffix(".__init__")
               for p in PACKAGE_DIR.rglob("*.py")}
    missing = sorted(on_disk - set(_graph().modules))
    assert not missing, f"modules import-linter cannot see (a folder without __init__.py?): {missing}"


def test_no_module_level_import_cycle() -> None:
    cycles = _cycles(_module_level_edges(_graph()))
    assert not cycles, "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(edges) == [["a", "b", "c"]]
