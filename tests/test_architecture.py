"""The shape of the code: domains behind faces, no import circles, no private names, small modules.

Read from the source with :mod:`ast` (nothing is imported), so an import inside a
function or under ``TYPE_CHECKING`` counts like any other: a circle through either still
makes two modules that cannot be understood (or changed) apart. The service is grouped
by domain (:data:`DOMAINS`, bottom first), each a package whose ``__init__`` (its face)
names what the others may use; docs/architecture.md draws the domains these tests keep.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "cardproof_service": ROOT / "service" / "cardproof_service",
    "cardproof": ROOT / "sdk" / "cardproof",
}
SERVICE = "cardproof_service"
DOMAINS = ("store", "plumbing", "door", "log", "deals", "lockstep", "tournaments", "front")
"""The service's domains, bottom first: each may import only those before it (the web front
is the top), and only through their faces. ``app`` (the factory that wires them) stands
above them all, beside the package's own face."""
ROOT_MODULES = {SERVICE, f"{SERVICE}.app"}
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


def bench_graph() -> dict[str, set[str]]:
    """bench/'s scripts (run from bench/, importing each other by bare name) and their imports."""
    scripts = {path.stem: path for path in (ROOT / "bench").glob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in scripts}
    for name, path in scripts.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                edges[name] |= {alias.name for alias in node.names if alias.name in scripts}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module in scripts:
                edges[name].add(node.module)
        edges[name].discard(name)
    return edges


def test_no_bench_script_imports_another_in_a_circle() -> None:
    edges = bench_graph()
    assert "wire" in edges["deadlines"]  # the graph is read at all
    assert circles(edges) == []


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


def domain_of(module: str) -> str | None:
    """The domain a module of the service is in (``None``: the package's face or the app)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in DOMAINS else None


def reaches_into_faces(package: str) -> list[str]:
    """Each import of another domain's inner module rather than its face, as a line."""
    found = modules(package)
    return [
        f"{path.relative_to(PACKAGES[package].parent)}:{line} imports {target}, "
        f"not {package}.{domain}"
        for module, path in found.items()
        for target, _, line in imports(module, path, set(found))
        if (domain := domain_of(target)) is not None
        and domain != domain_of(module)
        and target != f"{package}.{domain}"
    ]


def domain_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each domain and the other domains its modules import (the root modules left out)."""
    graph_: dict[str, set[str]] = {domain: set() for domain in DOMAINS}
    for module, targets in edges.items():
        source = domain_of(module)
        if source is not None:
            graph_[source] |= {d for t in targets if (d := domain_of(t)) not in (None, source)}
    return graph_


def test_every_module_of_the_service_is_in_a_domain_or_wires_them() -> None:
    strays = {m for m in modules(SERVICE) if domain_of(m) is None} - ROOT_MODULES
    packages = {p.name for p in PACKAGES[SERVICE].iterdir() if (p / "__init__.py").exists()}
    assert strays == set()
    assert packages == set(DOMAINS)


def test_a_domain_is_imported_only_through_its_face() -> None:
    assert reaches_into_faces(SERVICE) == []


def test_the_domains_import_each_other_in_no_circle() -> None:
    assert circles(domain_graph(graph(SERVICE))) == []


def test_each_domain_imports_only_the_domains_below_it() -> None:
    upward = {
        (domain, target)
        for domain, targets in domain_graph(graph(SERVICE)).items()
        for target in targets
        if DOMAINS.index(target) > DOMAINS.index(domain)
    }
    assert upward == set()


def test_no_domain_reaches_up_to_the_web_front_or_the_app() -> None:
    edges = graph(SERVICE)
    up = {
        (module, target)
        for module, targets in edges.items()
        for target in targets
        if domain_of(module) not in (None, "front")
        and (domain_of(target) == "front" or target in ROOT_MODULES)
    }
    assert up == set()
    assert not {t for m, ts in edges.items() if domain_of(m) == "front" for t in ts} & ROOT_MODULES


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_face_names_what_its_domain_offers_and_defines_nothing(domain: str) -> None:
    path = PACKAGES[SERVICE] / domain / "__init__.py"
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree), f"{domain}/__init__.py says what the domain is"
    imported: set[str] = set()
    offered: list[str] = []
    for node in tree.body[1:]:
        if isinstance(node, ast.ImportFrom):
            assert node.module is not None
            assert node.module.startswith(f"{SERVICE}.{domain}."), "a face hands on its own"
            imported |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            offered = list(ast.literal_eval(node.value))
        else:
            raise AssertionError(f"{domain}/__init__.py:{node.lineno} defines something")
    assert offered, f"{domain}/__init__.py names what it offers in __all__"
    assert sorted(offered) == sorted(imported)


def test_what_the_other_domains_take_from_a_face_is_all_it_offers() -> None:
    """A face offers nothing that no other domain (nor the app) uses: it stays small."""
    found = modules(SERVICE)
    taken: dict[str, set[str]] = {domain: set() for domain in DOMAINS}
    for module, path in found.items():
        for target, name, _ in imports(module, path, set(found)):
            domain = domain_of(target)
            if name and domain not in (None, domain_of(module)) and target == f"{SERVICE}.{domain}":
                taken[str(domain)].add(name)
    outside = (ROOT / "sdk", ROOT / "bench")
    for path in (p for folder in outside for p in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            if (domain := domain_of(node.module)) and node.module == f"{SERVICE}.{domain}":
                taken[domain] |= {alias.name for alias in node.names}
    for domain in DOMAINS:
        if domain == "store":
            continue  # the store's face offers its whole contract, to its own tests too
        offered = ast.literal_eval(
            next(
                node.value
                for node in ast.parse((PACKAGES[SERVICE] / domain / "__init__.py").read_text()).body
                if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
            )
        )
        assert set(offered) == taken[domain], domain


ARCHITECTURE = ROOT / "docs" / "architecture.md"
ARROW = re.compile(r"^\s*(\w+)\s*-->\s*(\w+)\s*$")


def drawn_arrows() -> set[tuple[str, str]]:
    """The arrows of docs/architecture.md's Mermaid diagram of the domains."""
    text = ARCHITECTURE.read_text()
    diagram = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    return {(m[1], m[2]) for line in diagram.splitlines() if (m := ARROW.match(line))}


def test_the_diagram_of_the_domains_draws_their_imports() -> None:
    edges = graph(SERVICE)
    real = {(a, b) for a, targets in domain_graph(edges).items() for b in targets}
    real |= {("app", d) for t in edges[f"{SERVICE}.app"] if (d := domain_of(t)) is not None}
    assert drawn_arrows() == real


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_architecture_names_every_module_under_its_domain(domain: str) -> None:
    text = ARCHITECTURE.read_text()
    heading = re.search(rf"^### .*\(`{domain}/`\)$", text, re.MULTILINE)
    assert heading, f"docs/architecture.md has a section for {domain}/"
    section = text[heading.end() :].split("\n### ", 1)[0]
    folder = PACKAGES[SERVICE] / domain
    named = {
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*.py")
        if path.name != "__init__.py" and "static" not in path.parts
    }
    if domain == "store":  # its backends are named as folders, one part per kind of record
        named = {n for n in named if "/" not in n} | {"memory/", "redis/"}
    missing = {
        name
        for name in named
        if f"`{name}`" not in section
        and f"`{domain}/{name}`" not in section
        and f"`{name.rpartition('/')[2]}`" not in section  # controllers/a.py, `b.py` listed
    }
    assert missing == set()


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


def test_a_reach_past_a_face_a_circle_of_domains_and_a_climb_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / SERVICE
    for domain in ("plumbing", "deals", "front"):
        (package / domain).mkdir(parents=True)
        (package / domain / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "plumbing" / "clock.py").write_text("from cardproof_service.deals import Deals\n")
    (package / "deals" / "play.py").write_text(
        "from cardproof_service.plumbing.clock import now\n"
        "from cardproof_service.front import page\n"
    )
    (package / "front" / "page.py").write_text("from cardproof_service.deals import play\n")
    monkeypatch.setitem(PACKAGES, SERVICE, package)
    reached = reaches_into_faces(SERVICE)
    assert sorted(line.split(" imports ")[1] for line in reached) == [
        "cardproof_service.deals.play, not cardproof_service.deals",  # `from deals import play`
        "cardproof_service.front.page, not cardproof_service.front",
        "cardproof_service.plumbing.clock, not cardproof_service.plumbing",
    ]
    domains = domain_graph(graph(SERVICE))
    assert domains["deals"] == {"plumbing", "front"}
    assert circles(domains) == [["deals", "front", "plumbing"]]
