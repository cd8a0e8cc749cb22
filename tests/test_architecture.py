"""The shape of the code: no import circles, no private names across modules, small modules.

Read from the source with :mod:`ast` (nothing is imported), so an import inside a
function or under ``TYPE_CHECKING`` counts like any other: a circle through either still
makes two modules that cannot be understood (or changed) apart. docs/architecture.md
draws the layers these tests keep.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "cardproof_service": ROOT / "service" / "cardproof_service",
    "cardproof": ROOT / "sdk" / "cardproof",
}
MAX_LINES = 500
"""Lines a module of the service may have (docs/architecture.md: one concern a module)."""
MAX_METHODS = 20
"""Methods a class of the service may define itself."""


def module_name(package: str, path: Path) -> str:
    """The dotted name of the module at ``path`` inside ``package``."""
    parts = path.relative_to(PACKAGES[package]).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((package, *parts))


def modules(package: str) -> dict[str, Path]:
    """Every module of ``package``, by dotted name."""
    return {module_name(package, path): path for path in PACKAGES[package].rglob("*.py")}


def imports(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, str | None, int]]:
    """Each import of a module of the same package: (module, the name taken, line).

    ``from pkg import sub`` is an import of the submodule when ``pkg.sub`` is a module,
    else of ``pkg`` itself (its ``__init__``), which a circle may run through too.
    """
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield f"{base}.{alias.name}", None, node.lineno
                elif base in known:
                    yield base, alias.name, node.lineno


def graph(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of it that it imports (itself left out)."""
    found = modules(package)
    edges: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        edges[name] |= {target for target, _, _ in imports(name, path, set(found))} - {name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_imports_another_in_a_circle(package: str) -> None:
    assert circles(graph(package)) == []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_takes_another_modules_private_names(package: str) -> None:
    found = modules(package)
    taken = [
        f"{path.relative_to(ROOT)}:{line} takes {name} from {target}"
        for module, path in found.items()
        for target, name, line in imports(module, path, set(found))
        if target != module and name is not None and name.startswith("_")
    ]
    assert taken == []


def test_service_modules_stay_small() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in PACKAGES["cardproof_service"].rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_service_classes_stay_small() -> None:
    large = {}
    for path in PACKAGES["cardproof_service"].rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                methods = [
                    item
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                if len(methods) > MAX_METHODS:
                    large[f"{path.relative_to(ROOT)}:{node.name}"] = len(methods)
    assert large == {}


# --- the checks themselves, on small made-up packages --------------------------------


def test_a_circle_is_found_and_a_chain_is_not() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_imports_are_read_in_every_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "low.py").write_text("_hidden = 1\nshown = 2\n")
    (package / "sub" / "deep.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.high import thing\n"
        "from .. import low\n"
        "from ..low import _hidden\n"
    )
    (package / "high.py").write_text(
        "import pkg.sub.deep\ndef later():\n    from pkg.low import shown\n"
    )
    monkeypatch.setitem(PACKAGES, "pkg", package)
    edges = graph("pkg")
    assert edges["pkg.sub.deep"] == {"pkg.high", "pkg.low"}
    assert edges["pkg.high"] == {"pkg.sub.deep", "pkg.low"}
    assert circles(edges) == [["pkg.high", "pkg.sub.deep"]]
    found = modules("pkg")
    private = [
        (target, name)
        for target, name, _ in imports("pkg.sub.deep", found["pkg.sub.deep"], set(found))
        if name is not None and name.startswith("_")
    ]
    assert private == [("pkg.low", "_hidden")]
