"""The SideQuest carrier only translates (docs/architecture.md, "Layers"): no module
`loreweaver/wire/sidequest*.py` imports a model or Django's database package; what it
reads and writes, the game's services do (`keeper/sidequest_services.py`,
`rooms/sidequest_services.py`). import-linter holds the models out of the whole wire
(its contract in pyproject.toml; `loreweaver/tests/test_import_contracts.py` shows it
breaking on a model import); these tests check that it covers these modules, and that
none imports `django.db`, which the contract cannot name (an external package is known
to it only whole)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WIRE = ROOT / "loreweaver" / "wire"
CONTRACT_NAME = "The wire imports no ORM model: the game's and the table's services do its database work"
CONTRACT = next(
    contract
    for contract in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    if contract["name"] == CONTRACT_NAME
)
CARRIER = sorted(WIRE.glob("sidequest*.py"))


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_contract_covers_the_whole_wire_and_so_every_sidequest_carrier_module():
    assert len(CARRIER) >= 7
    assert CONTRACT["source_modules"] == ["loreweaver.wire"]
    assert {"rooms.models", "keeper.models", "packs.models", "media_store.models"} <= set(
        CONTRACT["forbidden_modules"]
    )


def test_no_sidequest_carrier_module_imports_djangos_database_package():
    for path in CARRIER:
        database = sorted(
            name for name in _imported(path) if name == "django.db" or name.startswith("django.db.")
        )
        assert not database, f"{path.name} imports {database}: ask a service in keeper/ or rooms/"
