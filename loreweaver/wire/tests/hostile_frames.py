"""A fixed corpus of malformed and hostile control frames, each with the code it must get."""

from __future__ import annotations

import json
import random

from loreweaver.wire.protocol import inbound

WRONG_VALUES = [None, 7, -1.5, True, [], ["x"], {"a": 1}, "", "🂡" * 3]
BAD_JSON = [
    "",
    "{",
    "}",
    "{'type': 'ping'}",
    '{"type": "ping", "t": 1,}',
    '{"type": "ping" "t": 1}',
    "null",
    "true",
    "42",
    '"join"',
    "[]",
    '[{"type": "ping", "t": 1}]',
    '{"type": NaN}',
    '{"type": "ping", "t": Infinity}',
    '{"type": "ping", "t": -Infinity}',
    "{" * 5000 + "}" * 5000,
    "[" * 100000,
    '{"type": "\\ud800"}',
    '{"no_type": true}',
    '{"type": null}',
    '{"type": 5}',
    '{"type": ["input"]}',
    '{"type": {"nested": "input"}}',
]


def _models() -> dict[str, type]:
    return {m.model_fields["type"].annotation.__args__[0]: m for m in inbound.AnyInbound.__origin__.__args__}


def _kind(annotation: object) -> str:
    """What JSON a field accepts, from the spec's shape (as the models declare it)."""
    text = str(annotation)
    for kind in ("Literal", "ClientInfo", "bool", "float", "int", "str"):
        if kind in text:
            return kind
    raise ValueError(text)


def _accepts(kind: str, annotation: object, value: object) -> bool:
    if kind == "Literal":
        return (
            value in annotation.__args__[0].__args__
            if "None" in str(annotation)
            else value in annotation.__args__
        )
    if kind == "ClientInfo":
        return isinstance(value, dict) and all(
            isinstance(value.get(k), str | None) for k in ("name", "version")
        )
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, str)


def _valid_example(model: type) -> dict:
    """A valid frame of `model`'s type, to spoil one field at a time."""
    example: dict = {"type": model.model_fields["type"].annotation.__args__[0]}
    for name, field in model.model_fields.items():
        if name == "type" or not field.is_required():
            continue
        kind = _kind(field.annotation)
        example[name] = {
            "bool": True,
            "int": 1,
            "float": 1,
            "str": "x",
            "Literal": field.annotation.__args__[0] if kind == "Literal" else None,
        }[kind]
    return example


def corpus(seed: int = 7) -> list[tuple[str, str]]:
    """(text, expected error code) pairs, well over a thousand of them."""
    rng = random.Random(seed)
    cases: list[tuple[str, str]] = [(text, "bad_frame") for text in BAD_JSON]
    # Every known frame type with each field given each wrong type, or missing.
    for frame_type, model in _models().items():
        valid = _valid_example(model)
        # A malformed upload offer has its own code (docs/decisions.md, "Errors").
        malformed = "media_bad_offer" if frame_type == "media_offer" else "bad_frame"
        for name, field in model.model_fields.items():
            if name == "type":
                continue
            kind = _kind(field.annotation)
            for wrong in WRONG_VALUES:
                if wrong is None and not field.is_required():
                    continue  # an optional field may be null
                if not _accepts(kind, field.annotation, wrong):
                    cases.append((json.dumps({**valid, name: wrong}), malformed))
        for name in valid:
            if name != "type":
                cases.append((json.dumps({k: v for k, v in valid.items() if k != name}), malformed))
    # A second join on a joined connection.
    cases.append((json.dumps({"type": "join", "key": "x" * 100_000}), "bad_frame"))
    # Unknown types, including ones that look like real admin frames.
    for n in range(300):
        name = rng.choice(["admin_", "media_", "", "x-", "JOIN", "Input "]) + "".join(
            rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(1, 30))
        )
        if name not in inbound.KNOWN_TYPES:
            cases.append((json.dumps({"type": name, "n": n}), "bad_frame"))
    # Huge and hostile inputs.
    for size in (4001, 10_000, 100_000, 900_000):
        cases.append((json.dumps({"type": "input", "text": "a" * size}), "input_too_long"))
    for n in range(100):
        cases.append((json.dumps({"type": "input", "text": "漢" * (4001 + n)}), "input_too_long"))
    cases.append((json.dumps({"type": "ping", "t": 1, "pad": "p" * 500_000}), "pong"))
    # Junk that is not text: random bytes decoded as Latin-1 are still not JSON.
    for _ in range(400):
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))
        text = junk.decode("latin-1").replace("\n", " ")
        try:
            json.loads(text)
        except ValueError:
            cases.append((text, "bad_frame"))
    return cases
