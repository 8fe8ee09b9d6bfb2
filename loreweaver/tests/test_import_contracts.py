"""The layering's contracts (import-linter, in pyproject.toml; docs/architecture.md,
"Layers") hold on the code, cover every installed app, and catch an import against the
layers whether it is written absolute or relative."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
LOCAL_APPS = [app for app in settings.INSTALLED_APPS if (ROOT / app.split(".")[0]).is_dir()]


def _lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _layer_names(contract: dict) -> set[str]:
    return {name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}


def test_the_code_keeps_every_contract():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "BROKEN" not in result.stdout


def test_every_installed_app_sits_on_a_layer():
    layered = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    top = next(c for c in layered if "containers" not in c)
    inner = {container: _layer_names(c) for c in layered for container in c.get("containers", [])}
    assert set(CONFIG["root_packages"]) == _layer_names(top)
    for app in LOCAL_APPS:
        package, _, child = app.partition(".")
        assert package in _layer_names(top), f"{app} is in no layer"
        if child:
            assert child in inner.get(package, set()), f"{app} is in no layer of {package}"


@pytest.fixture(scope="module")
def copy_of_the_code(tmp_path_factory) -> Path:
    """The project's Python files and its contracts, to break on purpose."""
    root = tmp_path_factory.mktemp("layers")
    for package in CONFIG["root_packages"]:
        shutil.copytree(
            ROOT / package,
            root / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()
            ],
        )
    shutil.copy(ROOT / "pyproject.toml", root)
    return root


@pytest.mark.parametrize(
    ("path", "line", "named"),
    [
        ("base/frames.py", "from rooms import models", "base.frames -> rooms.models"),
        ("rooms/services.py", "import keeper.game", "rooms.services -> keeper.game"),
        (
            "loreweaver/wire/bus.py",
            "from ..console import admin",
            "loreweaver.wire.bus -> loreweaver.console.admin",
        ),
        (
            "loreweaver/console/story.py",
            "from ..table import views",
            "loreweaver.console.story -> loreweaver.table.views",
        ),
        # The wire asks the game's services; it never reads a model itself.
        (
            "loreweaver/wire/sidequest_opening.py",
            "from keeper.models import Story",
            "loreweaver.wire.sidequest_opening -> keeper.models",
        ),
        ("rooms/guests.py", "from loreweaver.wire import hub", "rooms.guests -> loreweaver.wire.hub"),
    ],
)
def test_an_import_against_the_layers_breaks_a_contract(copy_of_the_code, path, line, named):
    target = copy_of_the_code / path
    original = target.read_text()
    target.write_text(f"{original}\n\ndef _upward():\n    {line}  # noqa\n")
    try:
        result = _lint(copy_of_the_code)
    finally:
        target.write_text(original)
    assert result.returncode != 0
    assert named in result.stdout, result.stdout[-3000:]
