"""The house (issue 17, ARCHITECTURE.md): rules read off the code's syntax trees.

The layers themselves are import-linter's contract (pyproject.toml, run by `make test` and
`make lint`); these tests hold what it cannot see: function length and imports hidden inside
functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Every package of the project's own code (tests aside; migrations are generated).
PACKAGES = (
    "pages",
    "accounts",
    "curation",
    "provenance",
    "semantic",
    "institutions",
    "researchers",
    "papers",
    "wove",
    "cms",
    "corpus",
    "bench",
)
MAX_FUNCTION_LINES = 80
# A function may be longer when its docstring says why, in a paragraph starting so.
LONG_REASON = "Over 80 lines because"
# Where importing inside a function is the framework's way, not a dodged cycle:
# AppConfig.ready() connects receivers once the app registry is ready, and gunicorn's
# worker hook loads Django code only after django.setup() in the worker. The bench/ scripts
# are programs run on their own: each calls django.setup() before importing the apps.
FUNCTION_IMPORTS_ALLOWED = {
    ("wove/gunicorn_conf.py", "post_worker_init"),
    ("wove/gunicorn_conf.py", "_warm_site"),
}


def _sources() -> list[tuple[str, ast.Module]]:
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            relative = path.relative_to(ROOT).as_posix()
            out.append((relative, ast.parse(path.read_text(encoding="utf-8"), filename=relative)))
    return out


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def test_no_function_over_80_lines_without_a_reason():
    """Every function (methods and nested ones too) is at most 80 lines, decorators aside,
    unless its docstring gives the reason."""
    long = []
    for relative, tree in _sources():
        for node in _functions(tree):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and LONG_REASON not in (ast.get_docstring(node) or ""):
                long.append(f"{relative}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def _project_import(node: ast.Import | ast.ImportFrom) -> str | None:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "." * node.level + (node.module or "")
        names = [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    for name in names:
        if name.split(".")[0] in PACKAGES:
            return name
    return None


def test_no_project_import_inside_a_function():
    """Project modules are imported at the top of a module, so the import graph the layers
    contract checks is the whole graph (an import inside a function hid a cycle before)."""
    hidden = []
    for relative, tree in _sources():
        if relative.startswith("bench/"):
            continue
        for function in _functions(tree):
            if (relative, function.name) in FUNCTION_IMPORTS_ALLOWED:
                continue
            if function.name == "ready" and relative.endswith("/apps.py"):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and (name := _project_import(node)):
                    hidden.append(f"{relative}:{node.lineno} {function.name} imports {name}")
    assert sorted(set(hidden)) == []


def test_no_model_lookup_by_name_across_apps():
    """No ``apps.get_model`` in app code: it hid a dependency the contract could not see."""
    found = []
    for relative, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "get_model":
                found.append(f"{relative}:{node.lineno}")
    assert found == []
