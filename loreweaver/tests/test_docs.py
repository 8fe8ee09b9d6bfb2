"""The code cites the repository's own documents, and what it cites is there: every
`docs/<name>.md, "<section>"` names a file of docs/ and a heading in it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r'docs/([\w-]+)\.md(?:,\s+"([^"]+)"(?:\s+and\s+"([^"]+)")?)?')


def _headings(document: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in document.read_text().splitlines() if line.startswith("#")]


def test_every_cited_document_and_section_exists():
    broken = []
    for path in ROOT.rglob("*.py"):
        if ".venv" in path.parts:
            continue
        for match in CITATION.finditer(path.read_text()):
            document = ROOT / "docs" / f"{match.group(1)}.md"
            if not document.is_file():
                broken.append(f"{path.relative_to(ROOT)}: no {document.relative_to(ROOT)}")
                continue
            for cited in filter(None, match.groups()[1:]):
                section = " ".join(cited.split())  # a citation may wrap across lines
                if not any(heading.startswith(section) for heading in _headings(document)):
                    broken.append(f'{path.relative_to(ROOT)}: no section "{section}" in {document.name}')
    assert not broken, "\n".join(broken)


def test_nothing_cites_documents_outside_the_repository():
    outside = re.compile(r"\bDECISIONS\b|\bchecklist \d|RULES\.md|ARCHITECTURE\.md|\(issue \d")
    offenders = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if ".venv" not in path.parts and outside.search(path.read_text())
    ]
    assert offenders == []
