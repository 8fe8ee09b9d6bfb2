"""YAML from a pack: plain data only, no anchors or aliases (an alias bomb of a few
kilobytes expands into millions of nodes for whoever walks it), within a size cap.
Parsed by libyaml when PyYAML has it (a panels file near its cap takes the pure-Python
parser about a second)."""

from __future__ import annotations

from typing import Any

import yaml

from base.i18n import Refusal, _

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(data: bytes, *, name: str, limit: int, refusal: type[Refusal] = Refusal) -> Any:
    """The document in `data` (the file `name`), refused (`refusal`) when larger than
    `limit` bytes, not UTF-8, not YAML, or using anchors and aliases."""
    if len(data) > limit:
        raise refusal(_("{name} is larger than {limit} bytes."), name=name, limit=limit)
    try:
        text = data.decode("utf-8")
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise refusal(_("{name} uses YAML anchors or aliases, which packs may not."), name=name)
        return yaml.load(text, Loader=_LOADER)
    except UnicodeDecodeError:
        raise refusal(_("{name} is not UTF-8 text."), name=name) from None
    except yaml.YAMLError as problem:
        raise refusal(
            _("{name} is not valid YAML: {problem}"), name=name, problem=str(problem)[:200]
        ) from None
