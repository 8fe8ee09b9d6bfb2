"""What the layering leaves to this file (docs/architecture.md, "Layers"): the layers
themselves are import-linter's contracts in pyproject.toml (`make lint`, and
`test_import_contracts.py`); here, no group of modules imports each other in a circle,
no file is too long, and a few kinds of code each have one home.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
# Every package of the project: each installed app's top-level package, and the base.
PACKAGES = tuple(
    sorted(
        {
            "base",
            *(app.split(".")[0] for app in settings.INSTALLED_APPS if (ROOT / app.split(".")[0]).is_dir()),
        }
    )
)


def _is_production(path: Path) -> bool:
    return not {"tests", "testing", "migrations"} & set(path.relative_to(ROOT).parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if _is_production(path):
                parts = list(path.relative_to(ROOT).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


MODULES = _modules()


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int


def _resolve(name: str) -> str | None:
    """The project module `name` refers to (a module, or the module holding a name)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _absolute(module: str, name: str | None, level: int) -> str:
    """The absolute name of `from <level dots><name> import ...` written in `module`."""
    if not level:
        return name or ""
    package = module.split(".")
    if MODULES[module].name != "__init__.py":
        package.pop()  # a plain module's dots count from its package
    package = package[: len(package) - (level - 1)]
    return ".".join([*package, name] if name else package)


def _imports_of(module: str) -> list[Import]:
    found = []
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node.module, node.level)
            names = [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target and target != module and not module.startswith(target + "."):
                found.append(Import(module, target, node.lineno))
    return found


IMPORTS = [found for module in MODULES for found in _imports_of(module)]


def test_no_modules_import_each_other_in_a_circle():
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for found in IMPORTS:
        graph[found.importer].add(found.imported)
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join([*cycle, cycle[0]]) for cycle in cycles)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), as lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
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
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_file_is_longer_than_600_lines():
    long = [
        f"{path.relative_to(ROOT)}: {length} lines"
        for path in MODULES.values()
        if (length := len(path.read_text().splitlines())) > 600
    ]
    assert not long


def test_frames_are_parsed_in_one_place():
    for module, path in MODULES.items():
        source = path.read_text()
        if module.startswith("loreweaver.wire.protocol."):  # each protocol's inbound models
            continue
        assert "parse_frame(" not in source or module == "loreweaver.wire.session", module
        if module.startswith("loreweaver.wire"):  # the game validates its data files, not frames
            assert "model_validate" not in source, module


def test_the_protocol_version_is_declared_once():
    holders = [
        path.relative_to(ROOT).as_posix()
        for path in MODULES.values()
        if '"2.3"' in path.read_text() or "'2.3'" in path.read_text()
    ]
    assert holders == ["base/version.py"]


def test_nothing_outside_the_rules_layer_branches_on_outcome_id():
    pattern = re.compile(
        r"""outcome(\.id|\[["']id["']\])\s*(==|!=|\bin\b)|["']id["']\]\s*(==|!=)\s*["'](critical|fumble|extreme|hard|regular|failure|success)"""
    )
    offenders = [
        path.relative_to(ROOT).as_posix()
        for path in MODULES.values()
        if "keeper/rules" not in path.as_posix() and pattern.search(path.read_text())
    ]
    assert offenders == []


def test_outbound_frames_are_built_in_one_module():
    builder = MODULES["base.frames"]
    kinds = set(re.findall(r'"type": "(\w+)"', builder.read_text())) - {"media"}
    literal = re.compile('"type": "(' + "|".join(sorted(kinds)) + ')"')
    offenders = [
        path.relative_to(ROOT).as_posix()
        for module, path in MODULES.items()
        if module != "base.frames" and literal.search(path.read_text())
    ]
    assert offenders == []


def test_every_frame_type_a_client_sends_has_its_handler():
    from loreweaver.wire.handlers import HANDLERS
    from loreweaver.wire.protocol.inbound import KNOWN_TYPES

    assert set(HANDLERS) == set(KNOWN_TYPES)


# The modules that may touch the environment other than through the settings, and why.
ENVIRONMENT_READERS = {
    "base.env": "the classes the settings read; a bad value's message quotes the variable as given",
    "loreweaver.settings": "reads base/env.py's classes once, for every other module",
    "loreweaver.asgi": "names the settings module, before there are settings",
    "base.failpoints": "fault injection for the tests, armed in the base layer, below the settings",
    "loreweaver.wire.self_update": "hands the whole environment, unread, to the process that replaces it",
}


def _touches_the_environment(tree: ast.AST) -> bool:
    names = {"environ", "getenv", "environb"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names and ast.unparse(node.value) == "os":
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and {a.name for a in node.names} & names:
            return True
    return False


def test_the_environment_is_read_through_the_settings():
    # A module reading os.environ itself can disagree with the server it runs in (the
    # settings take names in any case, drop spaces, read a blank list as empty).
    readers = {
        module for module, path in MODULES.items() if _touches_the_environment(ast.parse(path.read_text()))
    }
    assert readers <= set(ENVIRONMENT_READERS), sorted(readers - set(ENVIRONMENT_READERS))
