"""The layering of ARCHITECTURE.md, pinned: carriers -> session -> hub / game services -> models."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_LAYER = (
    "rooms.session",
    "rooms.hub",
    "rooms.consumers",
    "rooms.iroh_carrier",
    "rooms.server",
    "rooms.protocol",
)


def _modules(package: str) -> list[Path]:
    return [
        p for p in (ROOT / package).rglob("*.py") if "tests" not in p.parts and "migrations" not in p.parts
    ]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_game_and_media_never_import_the_protocol_layer():
    for package in ("keeper", "media_store"):
        for path in _modules(package):
            bad = {name for name in _imports(path) if name.startswith(PROTOCOL_LAYER)}
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_carriers_know_framing_only():
    for carrier in ("rooms/consumers.py", "rooms/iroh_carrier.py"):
        imports = _imports(ROOT / carrier)
        assert not {
            n for n in imports if n.startswith(("rooms.models", "rooms.services", "keeper", "django.db"))
        }, carrier


def test_frames_are_parsed_in_one_place():
    for path in _modules("rooms") + _modules("keeper"):
        if path.name == "inbound.py":
            continue
        source = path.read_text()
        assert "parse_frame(" not in source or path.name == "session.py", path
        if "rooms" in path.parts:  # keeper validates its own data files (packs), not frames
            assert "model_validate" not in source, path


def test_the_protocol_version_is_declared_once():
    holders = [
        path.relative_to(ROOT).as_posix()
        for package in ("loreweaver", "rooms", "keeper", "media_store")
        for path in _modules(package)
        if '"2.3"' in path.read_text() or "'2.3'" in path.read_text()
    ]
    assert holders == ["loreweaver/version.py"]


def test_nothing_outside_the_rules_layer_branches_on_outcome_id():
    pattern = re.compile(
        r"""outcome(\.id|\[["']id["']\])\s*(==|!=|\bin\b)|["']id["']\]\s*(==|!=)\s*["'](critical|fumble|extreme|hard|regular|failure|success)"""
    )
    offenders = [
        path.relative_to(ROOT).as_posix()
        for package in ("loreweaver", "rooms", "keeper", "media_store")
        for path in _modules(package)
        if "keeper/rules" not in path.as_posix() and pattern.search(path.read_text())
    ]
    assert offenders == []
