"""Every document the docs and the code cite is in the repository (a cheap text scan).

README.md, docs/*.md, openapi/openapi.json and the Python sources of sdk/ and service/
may cite a file (a relative Markdown link, or a ``name.md``) and a numbered section of
docs/protocol.md, docs/rules.md or docs/architecture.md (``docs/rules.md section 5``,
``[`protocol.md`](protocol.md) section 3.4``, ``sections 3.1, 3.2 and 3.8``). Each must
exist: no citation of a document that is not here (an outside brief), nor of a section a
document does not have.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("protocol.md", "rules.md", "architecture.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")
"""A Markdown link's target."""
MD_NAME = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.md)\b")
"""A ``name.md`` cited in text (not inside a URL)."""
CITED_SECTIONS = re.compile(
    r"(?P<doc>protocol|rules|architecture)\.md`?\)?`?\]?(?:\([^)]*\))?[,:]?\s+"
    r"(?:\(|\bin\s+)?sections?\s+(?P<numbers>\d+(?:\.\d+)?(?:(?:,\s*|\s+(?:and|to|or)\s+)\d+(?:\.\d+)?)*)"
)
"""``rules.md section 5``, ``[`protocol.md`](protocol.md) sections 3.1, 3.2 and 3.8``."""
OWN_SECTIONS = re.compile(
    r"(?<![\w.])(?<!RFC )(?<!RFC \d{4} )(?<!RFC \d{3} )\(?sections?\s+"
    r"(?P<numbers>\d+(?:\.\d+)?(?:(?:,\s*|\s+(?:and|to|or)\s+)\d+(?:\.\d+)?)*)"
)
"""A bare ``section 4.6`` in a document of docs/: a section of that document."""


def _sources() -> list[Path]:
    """The files scanned: the README, docs, the OpenAPI spec, the SDK's and service's code."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "sdk", "service"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code = sorted(ROOT / name for name in listed if name.endswith(".py"))
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "openapi" / "openapi.json",
        *code,
    ]


SOURCES = _sources()


@cache
def _sections(doc: str) -> frozenset[str]:
    """The section numbers of ``docs/<doc>``: ``## 3. Deals`` is 3, ``### 3.4 ...`` is 3.4."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return frozenset(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.?\s", text, flags=re.MULTILINE))


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", text)


def _exists(name: str, cited_in: Path) -> bool:
    path = name.split("#", 1)[0]
    if not path:
        return True
    return any((base / path).exists() for base in (cited_in.parent, ROOT, ROOT / "docs"))


def _where(path: Path, text: str, offset: int) -> str:
    return f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, offset) + 1}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_file_and_section_exists(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    missing: list[str] = []
    if path.suffix == ".md":
        for link in LINK.finditer(text):
            target = link.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor of this page
            if not _exists(target, path):
                missing.append(f"{_where(path, text, link.start())}: link to {target}")
    for name in MD_NAME.finditer(text):
        if not _exists(name.group(1), path):
            missing.append(f"{_where(path, text, name.start())}: cites {name.group(1)}")
    for cited in CITED_SECTIONS.finditer(text):
        doc = f"{cited.group('doc')}.md"
        for number in _numbers(cited.group("numbers")):
            if number not in _sections(doc):
                missing.append(f"{_where(path, text, cited.start())}: {doc} section {number}")
    if path.parent.name == "docs" and path.name in DOCS:
        for cited in OWN_SECTIONS.finditer(text):
            before = text[max(0, cited.start() - 40) : cited.start()]
            if "RFC" in before or re.search(r"\.md`?\)?\s*\(?$", before):
                continue  # another standard's section, or one the pattern above checked
            for number in _numbers(cited.group("numbers")):
                if number not in _sections(path.name):
                    where = _where(path, text, cited.start())
                    missing.append(f"{where}: {path.name} section {number}")
    assert not missing, "\n".join(missing)


def test_the_scan_reads_what_it_should() -> None:
    """The patterns find the citations they are for (and would catch a missing one)."""
    assert {"3", "3.4", "4.5", "6"} <= _sections("protocol.md")
    cited = [
        m.group("doc", "numbers")
        for m in CITED_SECTIONS.finditer(
            "see docs/rules.md section 5; [`protocol.md`](protocol.md) sections 3.1, 3.2 and 3.8"
        )
    ]
    assert cited == [("rules", "5"), ("protocol", "3.1, 3.2 and 3.8")]
    brief, rules = "BRIEF.md", "RULEBOOK.md"  # documents that are not in the repository
    assert [m.group(1) for m in MD_NAME.finditer(f"see {brief} and https://x.org/a.md")] == [brief]
    assert not _exists(brief, ROOT / "README.md")
    assert not _exists(rules, ROOT / "docs" / "rules.md")
    assert "9" not in _sections("protocol.md")
