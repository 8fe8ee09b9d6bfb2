"""The README's quick start ("The two commands") says what a newcomer would otherwise
guess: the Python it needs, the Postgres and Redis `make test` needs beside the command,
what the Iroh endpoint opens by default and how to keep a table local, where the port
and the data folder are chosen (there only), and how players get their keys. Its
benchmark figures live in docs/benchmarks.md; the README keeps how to run them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from base.env import IrohEnv
from loreweaver.testing import servers
from loreweaver.wire import iroh_carrier

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _section(text: str, heading: str) -> str:
    """The text under a `## ` heading, up to the next one."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no section {heading!r}"
    return match.group(1)


QUICK_START = _section(README, "The two commands")


def test_the_quick_start_states_the_python_it_needs():
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    version = required.removeprefix(">=")
    assert f"Python {version} or newer" in QUICK_START


def test_the_services_make_test_needs_are_named_beside_it():
    postgres = servers.POSTGRES_ADMIN_URL.rpartition("@")[2].split("/")[0]
    redis = servers.REDIS_TEST_URL.removeprefix("redis://").split("/")[0]
    assert f"PostgreSQL on {postgres}" in QUICK_START and f"Redis on {redis}" in QUICK_START


def test_the_quick_start_says_what_iroh_opens_and_how_to_keep_it_local():
    words = " ".join(QUICK_START.split())
    assert f"UDP {iroh_carrier.DEFAULT_BIND.rpartition(':')[2]} on every interface" in words
    assert f"`{iroh_carrier.DEFAULT_BIND}`" in words and "public relays" in words
    for local in ('ARGS="--no-iroh"', "TRPG_IROH__BIND=127.0.0.1:4433", '"--iroh-no-relay"'):
        assert local in words, local


def test_port_and_data_folder_are_explained_in_one_place():
    where = "**Where it listens and keeps its data.**"
    assert where in QUICK_START
    explained = [line for line in README.splitlines() if "TRPG_DATA_DIR" in line or '"--port' in line]
    outside = [
        line for line in explained if line not in QUICK_START and not line.startswith("| `TRPG_DATA_DIR`")
    ]
    assert outside == []


def test_the_quick_start_says_how_players_get_their_keys():
    assert "**Getting players their keys.**" in QUICK_START
    assert "manage.py mint_key --room table --name" in QUICK_START and "#key=" in QUICK_START


def test_every_iroh_setting_is_in_the_configuration_table():
    configuration = _section(README, "Configuration")
    for name in IrohEnv.model_fields:
        assert f"| `TRPG_IROH__{name.upper()}` |" in configuration, name


def test_the_benchmark_figures_are_in_their_own_document():
    benchmarks = _section(README, "Benchmarks")
    assert "make bench" in benchmarks and "make bench-quick" in benchmarks
    assert "docs/benchmarks.md" in benchmarks
    assert not re.search(r"^\|", benchmarks, re.M), "a table of figures in the README"
    document = (ROOT / "docs" / "benchmarks.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for script in sorted(set(re.findall(r"bench/(\w+)\.py", makefile))):
        assert f"`{script}.py`" in benchmarks, script
        assert f"bench/{script}.py" in document, script
