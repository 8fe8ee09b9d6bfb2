"""A seeded generator of hostile and malformed SideQuest messages (the contract's
`{type, payload, player_id}` on `/ws`), for the SideQuest fuzz suite: bad JSON, wrong
types for the envelope and for every payload field, unknown types, slash and dot
commands with random arguments (`/gm` among them, with numbers `int` would refuse),
repeated connects, invalid UTF-8, binary messages, and, each on a connection of its
own, messages before any connect and messages over the size cap. The same seed gives
the same cases."""

from __future__ import annotations

import json
import random

from loreweaver.wire.tests.fuzz_frames import COMMANDS, Case

TYPES = ["PLAYER_ACTION", "SESSION_EVENT", "CHARACTER_CREATION", "VOICE_SIGNAL", "JOURNAL_REQUEST"]
SLASH = ["status", "inventory", "map", "help", "tone", "save", "gm", "GM", "nonsense", ""]
GM_VERBS = ["set", "spawn", "teleport", "dmg", "DMG", "fly", ""]
NUMBERS = ["3", "²", "٣", "three", "-4", "0", "99999999999999999999", "1e9", "3.5", "", "½", "9" * 400]
KIB = 1024


class SideQuestFuzzer:
    """Cases from a seed; `cases(n)` gives the first n, `gm_cases(n)` only `/gm` lines."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def cases(self, count: int) -> list[Case]:
        makers = [
            (25, self._wrong_payload),
            (15, self._envelope),
            (15, self._slash),
            (10, self._dot_command),
            (8, self._action),
            (8, self._garbage),
            (5, self._creation),
            (4, self._connect_again),
            (4, self._bad_utf8),
            (3, self._binary),
            (2, self._before_connect),
            (1, self._oversized),
        ]
        weights = [weight for weight, _ in makers]
        return [self.rng.choices(makers, weights)[0][1]() for _ in range(count)]

    def gm_cases(self, count: int) -> list[Case]:
        return [self._message("PLAYER_ACTION", {"action": self._gm_line()}) for _ in range(count)]

    # --- values --------------------------------------------------------------------------

    def _value(self, depth: int = 0) -> object:
        rng = self.rng
        choice = rng.randrange(11 if depth < 3 else 8)
        if choice == 0:
            return None
        if choice == 1:
            return rng.choice([True, False])
        if choice == 2:
            return rng.choice([0, -1, 7, 2**31, 2**53, -(2**63)])
        if choice == 3:
            return rng.choice([0.5, 1e300, -0.0])
        if choice == 4:
            return ""
        if choice == 5:
            return self._text(rng.randint(1, 60))
        if choice == 6:
            return "x" * rng.choice([63, 64, 65, 256, 257, 2000, 2001, 20000])
        if choice == 7:
            return rng.choice(["🂡🂱", "侦查", "\u202e", "tab\tand\nnewline", "'\"\\", "\u0000", "²"])
        if choice == 8:
            return [self._value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {self._text(rng.randint(1, 8)): self._value(depth + 1) for _ in range(rng.randint(0, 4))}

    def _text(self, length: int) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyz .,;:!?-_/\\'\"{}[]()0123456789侦查守秘人🎲²"
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def _message(self, kind: object, payload: object, **extra: object) -> Case:
        return Case("text", json.dumps({"type": kind, "payload": payload, "player_id": "", **extra}))

    def _gm_line(self) -> str:
        rng = self.rng
        verb = rng.choice(GM_VERBS)
        if verb.lower() == "dmg":
            who = rng.choice(["Fuzzer", "Nobody", "", self._text(rng.randint(1, 30))])
            return f"/gm {verb} {who} {rng.choice(NUMBERS)}"
        return f"/gm {verb} {self._text(rng.randint(0, 80))}"

    # --- cases ---------------------------------------------------------------------------

    def _wrong_payload(self) -> Case:
        kind = self.rng.choice(TYPES)
        fields = {
            "PLAYER_ACTION": ["action", "aside"],
            "SESSION_EVENT": ["event", "player_name", "genre", "world", "key"],
            "CHARACTER_CREATION": ["phase", "choice"],
        }.get(kind, ["anything"])
        payload = {name: self._value() for name in fields if self.rng.random() < 0.8}
        return self._message(kind, payload)

    def _envelope(self) -> Case:
        rng = self.rng
        kind = rng.choice([self._value(), "DANCE", "player_action", "NARRATION", "ERROR", rng.choice(TYPES)])
        return self._message(kind, self._value(), player_id=self._value())

    def _slash(self) -> Case:
        word = self.rng.choice(SLASH)
        line = self._gm_line() if word == "gm" else f"/{word} {self._text(self.rng.randint(0, 40))}"
        return self._message("PLAYER_ACTION", {"action": line})

    def _dot_command(self) -> Case:
        rng = self.rng
        word = rng.choice([*COMMANDS, "scene", "dmg", "var", "turns", "chronicle"])
        argument = rng.choice(
            ["", self._text(rng.randint(1, 60)), rng.choice(NUMBERS), "Fuzzer " + rng.choice(NUMBERS)]
        )
        return self._message("PLAYER_ACTION", {"action": f"{rng.choice(['.', '。'])}{word} {argument}"})

    def _action(self) -> Case:
        rng = self.rng
        text = rng.choice([self._text(rng.randint(1, 200)), " " * 5, "x" * 2000, "x" * 2001, "(( aside ))"])
        return self._message("PLAYER_ACTION", {"action": text, "aside": rng.random() < 0.3})

    def _garbage(self) -> Case:
        return Case(
            "text",
            self.rng.choice(
                ["", "null", "[]", "{", "}", "NaN", "{'type': 'x'}", self._text(100), "{}" * 500]
            ),
        )

    def _creation(self) -> Case:
        choice = self.rng.choice(["Yes", "No", "", "是", self._text(self.rng.randint(1, 100)), "x" * 2001])
        return self._message("CHARACTER_CREATION", {"phase": "scene", "choice": choice})

    def _connect_again(self) -> Case:
        payload = {"event": "connect", "player_name": self._text(10), "genre": "coc7", "world": self._text(8)}
        if self.rng.random() < 0.5:
            payload["key"] = self._text(20)
        return self._message("SESSION_EVENT", payload)

    def _bad_utf8(self) -> Case:
        junk = self.rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"])
        return Case("bad_utf8", b'{"type": "PLAYER_ACTION", "payload": {"action": "' + junk + b'"}}')

    def _binary(self) -> Case:
        return Case("binary", bytes(self.rng.randrange(256) for _ in range(self.rng.randint(0, 200))))

    def _before_connect(self) -> Case:
        """A message as the first of a fresh connection (a refused connect follows it)."""
        maker = self.rng.choice(
            [self._wrong_payload, self._slash, self._action, self._garbage, self._creation]
        )
        return Case("before_join", maker().payload)

    def _oversized(self) -> Case:
        size = self.rng.choice([65, 100, 1024]) * KIB
        return Case("oversized", json.dumps({"type": "PLAYER_ACTION", "payload": {"action": "x" * size}}))
