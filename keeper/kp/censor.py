"""Fail-closed output filters for what the Keeper says.

`MachineryFilter` drops machinery a model may write into its text (tool-call markup,
state-update blocks, reasoning blocks, special tokens) before a single character of it
streams: text is held back while it could still be the start of such a block, and a
block that never closes swallows the rest of the reply. `Wordlist` masks the operator's
listed words, holding back just enough text that a word split across two deltas is
still caught. Both keep the streamed text and the final text identical.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings

MACHINERY_TAGS = (
    "tool_call",
    "tool_calls",
    "function_call",
    "function_calls",
    "invoke",
    "tool_use",
    "updatevariable",
    "update_variable",
    "state_update",
    "jsonpatch",
    "think",
    "thinking",
    "analysis",
)
_OPEN = re.compile(r"<\s*([A-Za-z_][\w-]*)[^<>]*>")
_LONGEST_OPEN = 64


class MachineryFilter:
    """Streams text minus machinery blocks; see the module docstring."""

    def __init__(self) -> None:
        self._pending = ""
        self._inside: str | None = None  # the tag whose closing we wait for
        self._sealed = False  # an unterminated special token: nothing more streams

    def feed(self, text: str) -> str:
        """Take raw model text; return what may be shown now."""
        if self._sealed:
            return ""
        self._pending += text
        out: list[str] = []
        while self._pending:
            if self._inside is not None:
                closing = re.search(rf"<\s*/\s*{re.escape(self._inside)}\s*>", self._pending, re.IGNORECASE)
                if closing is None:
                    return "".join(out)  # keep waiting; nothing inside a block is shown
                self._pending = self._pending[closing.end() :]
                self._inside = None
                continue
            start = self._pending.find("<")
            if start < 0:
                out.append(self._pending)
                self._pending = ""
                break
            out.append(self._pending[:start])
            rest = self._pending[start:]
            if rest.startswith("<|") or rest.startswith("<｜"):
                self._sealed = True  # a special token such as <|tool_calls_begin|>
                self._pending = ""
                break
            opening = _OPEN.match(rest)
            if opening and opening.group(1).lower() in MACHINERY_TAGS:
                self._inside = opening.group(1)
                self._pending = rest[opening.end() :]
                continue
            if opening is None and self._could_open(rest):
                self._pending = rest
                break  # wait for more text to decide
            out.append("<")
            self._pending = rest[1:]
        return "".join(out)

    @staticmethod
    def _could_open(rest: str) -> bool:
        """Whether `rest` (a '<' and what follows, no '>' yet) may still become a
        machinery tag once more text arrives."""
        if len(rest) > _LONGEST_OPEN or ">" in rest:
            return False
        name = re.match(r"<\s*([A-Za-z_][\w-]*)?", rest)
        assert name is not None
        word = (name.group(1) or "").lower()
        if name.end() == len(rest):  # the name may still be growing
            return any(tag.startswith(word) for tag in MACHINERY_TAGS)
        return word in MACHINERY_TAGS  # attributes follow a complete name

    def finish(self) -> str:
        """The end of the reply: an unclosed block or a half tag is dropped."""
        self._pending = ""
        return ""


class Wordlist:
    """Masks listed words (case-insensitive) in a stream of text."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self._words = tuple(w for w in words if w)
        self._pattern = (
            re.compile(
                "|".join(re.escape(w) for w in sorted(self._words, key=len, reverse=True)), re.IGNORECASE
            )
            if self._words
            else None
        )
        self._holdback = max((len(w) for w in self._words), default=1) - 1
        self._pending = ""

    def mask(self, text: str) -> str:
        """`text` with every listed word replaced by as many '*'."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: "*" * len(m.group(0)), text)

    def feed(self, text: str) -> str:
        if self._pattern is None:
            return text
        masked = self.mask(self._pending + text)
        cut = max(0, len(masked) - self._holdback)
        self._pending = masked[cut:]
        return masked[:cut]

    def finish(self) -> str:
        rest, self._pending = self.mask(self._pending), ""
        return rest


@lru_cache(maxsize=4)
def _words_in(path: str, _mtime: float) -> tuple[str, ...]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def output_wordlist() -> Wordlist:
    """A fresh filter over the operator's wordlist (`TRPG_OUTPUT_WORDLIST`), re-read
    when the file changes."""
    path = settings.TRPG_OUTPUT_WORDLIST
    if not path:
        return Wordlist(())
    try:
        return Wordlist(_words_in(path, Path(path).stat().st_mtime))
    except OSError:
        return Wordlist(())


class OutputFilter:
    """Machinery first, then the wordlist: what a Keeper draft may show."""

    def __init__(self) -> None:
        self._machinery = MachineryFilter()
        self._words = output_wordlist()
        self.shown = ""

    def feed(self, text: str) -> str:
        out = self._words.feed(self._machinery.feed(text))
        self.shown += out
        return out

    def finish(self) -> str:
        out = self._words.feed(self._machinery.finish()) + self._words.finish()
        self.shown += out
        return out
