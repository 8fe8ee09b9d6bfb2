"""A seeded generator of hostile and malformed client messages, for the fuzz suite.

Each case is what a client puts on the wire: a text message (one control frame), a
text message whose bytes are not UTF-8, a binary message, or a frame sent before any
join (on a connection of its own). The mix covers wrong types for every field of
every frame type, huge and out-of-range numbers, deep nesting, invalid UTF-8, NUL and
lone surrogates, binary where text belongs, repeated joins, and dot commands with
random arguments (which reach the game code). The same seed gives the same cases.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from loreweaver.wire.protocol import inbound

COMMANDS = [
    "r",
    "rh",
    "ra",
    "rav",
    "rc",
    "rcv",
    "rd",
    "roll",
    "check",
    "sc",
    "st",
    "coc",
    "dnd",
    "en",
    "ti",
    "li",
    "ri",
    "pc",
    "nn",
    "rule",
    "jrrp",
    "help",
    "h",
    "reset",
    "language",
    "save",
    "npc",
    "module",
    "note",
    "recap",
    "report",
    "skill",
    "audio",
    "bgm",
    "ambience",
    "amb",
    "sfx",
    "model",
]


@dataclass(frozen=True)
class Case:
    """One message: `kind` is "text", "bad_utf8" (text whose bytes are not UTF-8),
    "binary", or "before_join" (a text sent first, on a fresh connection)."""

    kind: str
    payload: str | bytes


def _models() -> dict[str, type]:
    return {m.model_fields["type"].annotation.__args__[0]: m for m in inbound.AnyInbound.__origin__.__args__}


class FrameFuzzer:
    """Cases from a seed; `cases(n)` gives the first n."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.models = _models()
        # Admin frames are refused for the player the fuzz plays as; they are in the mix
        # so that refusal is exercised too.
        self.types = sorted(self.models)

    def cases(self, count: int) -> list[Case]:
        """The first `count` cases of this seed."""
        makers = [
            (30, self._wrong_field),
            (12, self._weird_input),
            (10, self._command),
            (8, self._numbers),
            (6, self._nesting),
            (6, self._unstorable_text),
            (6, self._bad_utf8),
            (6, self._binary),
            (5, self._garbage),
            (5, self._valid),
            (4, self._repeated_join),
            (2, self._before_join),
        ]
        weights = [weight for weight, _ in makers]
        return [self.rng.choices(makers, weights)[0][1]() for _ in range(count)]

    # --- values --------------------------------------------------------------------------

    def _value(self, depth: int = 0) -> object:
        rng = self.rng
        choice = rng.randrange(12 if depth < 3 else 9)
        if choice == 0:
            return None
        if choice == 1:
            return rng.choice([True, False])
        if choice == 2:
            return rng.choice([0, -1, 1, 2**31, -(2**31), 2**53, -(2**53), 7])
        if choice == 3:
            return rng.choice([0.5, -0.0, 1e300, -1e-300, 3.14159])
        if choice == 4:
            return ""
        if choice == 5:
            return self._text(rng.randint(1, 40))
        if choice == 6:
            return self._text(rng.randint(200, 5000))
        if choice == 7:
            return rng.choice(["🂡🂱", "侦查", "\u202e", "ZWJ\u200d", "tab\tand\nnewline", "'\"\\"])
        if choice == 8:
            return "x" * rng.choice([63, 64, 65, 4000, 4001, 20000])
        if choice == 9:
            return [self._value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {self._text(rng.randint(1, 8)): self._value(depth + 1) for _ in range(rng.randint(0, 4))}

    def _text(self, length: int) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyz .,;:!?-_/\\'\"{}[]()0123456789侦查守秘人🎲"
        return "".join(self.rng.choices(alphabet, k=length))

    def _frame(self, frame_type: str | None = None) -> dict:
        frame_type = frame_type or self.rng.choice(self.types)
        fields = [name for name in self.models[frame_type].model_fields if name != "type"]
        frame: dict = {"type": frame_type}
        for name in fields:
            if self.rng.random() < 0.8:
                frame[name] = self._value()
        return frame

    @staticmethod
    def _dump(frame: object) -> str:
        return json.dumps(frame, ensure_ascii=False)

    # --- cases ---------------------------------------------------------------------------

    def _wrong_field(self) -> Case:
        return Case("text", self._dump(self._frame()))

    def _weird_input(self) -> Case:
        text = self.rng.choice(
            [
                self._text(self.rng.randint(1, 300)),
                "." * self.rng.randint(1, 50),
                "[[" + self._text(20) + "]]",
                "[[1d" + str(self.rng.randint(0, 10**9)) + "]]",
                " " * 10,
                "x" * 4001,
                "。" + self._text(10),
                "/" + self._text(10),
            ]
        )
        return Case("text", self._dump({"type": "input", "text": text}))

    def _command(self) -> Case:
        rng = self.rng
        argument = rng.choice(
            [
                "",
                self._text(rng.randint(1, 60)),
                f"{rng.randint(-5, 10**6)}d{rng.randint(-5, 10**6)}",
                "1d6" + "+1d6" * rng.randint(1, 300),
                "(" * rng.randint(1, 100) + "1" + ")" * rng.randint(1, 100),
                "HP-" + str(rng.randint(-(10**12), 10**12)),
                "STR" + str(rng.randint(-1000, 10**9)),
                "x" * rng.randint(60, 3900),
                "add " + self._text(20) + " | " + self._text(30) + " | " + self._text(30),
                "set " + " | ".join(self._text(rng.randint(1, 100)) for _ in range(3)),
                "load ../../etc/passwd",
                "claim " + self._text(10),
                str(rng.randint(-(10**30), 10**30)),
            ]
        )
        prefix = rng.choice([".", "。", "/"])
        return Case(
            "text", self._dump({"type": "input", "text": f"{prefix}{rng.choice(COMMANDS)} {argument}"})
        )

    def _numbers(self) -> Case:
        number = self.rng.choice(
            [
                "9" * 310,
                "-" + "9" * 400,
                "1e400",
                "-1e400",
                "1e-400",
                "9007199254740993",
                "123456789012345678",
            ]
        )
        frame_type = self.rng.choice(["ping", "media_offer", "ping", "admin_update_key"])
        field = {"ping": "t", "media_offer": "size", "admin_update_key": "id"}[frame_type]
        base = self._frame(frame_type)
        base[field] = "__NUMBER__"
        return Case("text", self._dump(base).replace('"__NUMBER__"', number))

    def _nesting(self) -> Case:
        depth = self.rng.choice([50, 500, 5000, 50000])
        opener, closer = self.rng.choice([("[", "]"), ('{"a":', "}")])
        return Case("text", '{"type": "ping", "t": 1, "x": ' + opener * depth + "1" + closer * depth + "}")

    def _unstorable_text(self) -> Case:
        poison = self.rng.choice(["\\u0000", "\\ud800", "\\udfff", "\\udc80x", "a\\u0000b"])
        field = self.rng.choice(["text", "key", "name", "hash", "panel"])
        frame_type = {"text": "input", "key": "join", "name": "media_offer", "hash": "avatar_set"}.get(
            field, "panel_intent"
        )
        base = self._frame(frame_type)
        base[field] = "__POISON__"
        return Case("text", self._dump(base).replace("__POISON__", poison))

    def _bad_utf8(self) -> Case:
        junk = self.rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80\x80"])
        return Case("bad_utf8", b'{"type": "input", "text": "' + junk + b'"}')

    def _binary(self) -> Case:
        rng = self.rng
        kind = rng.randrange(3)
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
        elif kind == 1:  # a media envelope with a hostile header
            header = self._dump(self._value()).encode("utf-8", "surrogatepass")
            data = len(header).to_bytes(4, "big") + header + bytes(rng.randint(0, 50))
        else:  # a length prefix that lies
            data = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x7f\xff\xff\xff{}"])
        return Case("binary", data)

    def _garbage(self) -> Case:
        return Case(
            "text",
            self.rng.choice(
                ["", "null", "[]", "{", "}", '"join"', "NaN", "{'type': 'ping'}", self._text(100), "{}" * 500]
            ),
        )

    def _valid(self) -> Case:
        frame = self.rng.choice(
            [
                {"type": "ping", "t": self.rng.randint(0, 10**12)},
                {"type": "list_pack_cards"},
                {"type": "panel_intent", "panel": "p", "kind": "choice", "value": "v"},
                {"type": "avatar_set", "hash": "0" * 64},
                {"type": "media_offer", "name": "a.png", "mime": "image/png", "size": 10, "sha256": "a" * 64},
                {"type": "admin_list_keys"},
                {"type": "input", "text": ".r 1d6"},
            ]
        )
        return Case("text", self._dump(frame))

    def _repeated_join(self) -> Case:
        return Case("text", self._dump({"type": "join", "key": self._text(30)}))

    def _before_join(self) -> Case:
        inner = self.rng.choice([self._wrong_field(), self._numbers(), self._nesting(), self._garbage()])
        return Case("before_join", inner.payload)
