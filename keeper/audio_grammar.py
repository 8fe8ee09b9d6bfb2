"""How the audio desk's lines read (docs/rules.md, "The audio desk"): the reference
implementation's grammar, which Loreweaver Studio's deck sends, and this server's own
`--flag` spelling, in one parser.

`.bgm <audio> [loop|once] [volume v] [fade ms]`: `play` (or `start`, `播放`) before the
track is optional; `--loop`, `noloop`, `--no-loop`, `--volume 0.5`, `volume=0.5`,
`vol 40%`, `--fade 2000`, `fade=2000` read alike. A track's name may have spaces (an
unquoted title): the bare option words are taken off the END of the line only, so
"the loop closes" stays a title while "waves.wav loop volume 0.5" is waves.wav,
looped, at half volume. A `--word` is an option wherever it stands, and one the desk
does not know is refused rather than searched for as a track.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass

from base.i18n import Refusal, _

# The first word of a layer command: playing is the default, so `play` may be left out.
PLAY_WORDS = frozenset({"play", "start", "播放", "开始", "開始"})
ACTION_WORDS = {
    "stop": "stop",
    "停止": "stop",
    "pause": "pause",
    "暂停": "pause",
    "暫停": "pause",
    "resume": "resume",
    "继续": "resume",
    "繼續": "resume",
}
VOLUME_WORDS = frozenset({"volume", "vol", "音量"})

_LOOP = {
    "loop": True,
    "--loop": True,
    "once": False,
    "noloop": False,
    "--no-loop": False,
    "--noloop": False,
    "--once": False,
}
# An option that takes a value, by each spelling (with or without `--`, or `key=value`).
_VALUED = {"volume": "volume", "vol": "volume", "fade": "fade_ms", "fade_ms": "fade_ms", "fade-ms": "fade_ms"}
MAX_FADE_MS = 600_000


@dataclass
class Play:
    """A play line read: the track's name and the options given (None: not said)."""

    name: str
    loop: bool | None = None
    volume: float | None = None
    fade_ms: int | None = None


def words(arguments: str) -> list[str]:
    """The arguments split like a shell would (quotes group words: Studio quotes a
    title with spaces), or on spaces when the quotes do not pair."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def parse_volume(text: str) -> float:
    """A volume as the reference reads it: 0 to 1, or a percentage (`40`, `40%`: 0.4).
    Anything else (negative, over 100%, not a number) is refused, not clamped."""
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = float(raw.rstrip("%").strip())
    except ValueError:
        value = math.nan
    if percent or value > 1:
        value /= 100
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise Refusal(
            _("Volume is from 0 to 1, or a percentage up to 100 (40 means 0.4); {v} is not."),
            v=raw[:20],
        )
    return round(value, 4)


def parse_fade(text: str) -> int:
    """A fade in whole milliseconds, 0 to ten minutes."""
    raw = text.strip()
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_FADE_MS:
        raise Refusal(_("Fade is whole milliseconds from 0 to 600000; {v} is not."), v=raw[:20])
    return value


def _valued_key(word: str) -> str | None:
    """The option a word names when a value follows it (`volume`, `--fade`), else None."""
    return _VALUED.get(word.casefold().removeprefix("--"))


def _assign(play: Play, key: str, value: str, *, keep: bool) -> None:
    # Peeling from the end meets the last-typed option first; the last one typed wins.
    if keep and getattr(play, key) is not None:
        return
    setattr(play, key, parse_volume(value) if key == "volume" else parse_fade(value))


def _set_loop(play: Play, value: bool, *, keep: bool) -> None:
    if not (keep and play.loop is not None):
        play.loop = value


def _equals_option(word: str) -> tuple[str, str] | None:
    """(option, value) of `volume=0.5`, `--fade=2000`, `vol=40%`, else None."""
    key, sep, value = word.partition("=")
    option = _valued_key(key) if sep else None
    return (option, value) if option else None


def _unknown(word: str) -> Refusal:
    return Refusal(
        _("Unknown option {o}: a track takes loop or once, volume <0 to 1> and fade <milliseconds>."),
        o=word[:40],
    )


def parse_play(arguments: list[str]) -> Play:
    """A play line's words (after the layer word) read into a `Play`. Raises `Refusal`
    for a value out of range, an option without its value, or an unknown `--option`."""
    rest = list(arguments)
    if rest and rest[0].casefold() in PLAY_WORDS:
        rest = rest[1:]
    play = _read(rest)
    if not play.name and rest and not any(word.startswith("--") for word in rest):
        # Nothing but option words: they are a track's name ("Volume 2", "Loop").
        return Play(" ".join(rest))
    return play


def _read(rest: list[str]) -> Play:
    play = Play("")
    rest = list(rest)
    # The bare words (loop, volume 0.5) come off the end only: inside a title they are
    # the title's words.
    while rest:
        last = rest[-1].casefold()
        if last in _LOOP:
            _set_loop(play, _LOOP[last], keep=True)
            rest.pop()
        elif pair := _equals_option(last):
            _assign(play, pair[0], pair[1], keep=True)
            rest.pop()
        elif len(rest) >= 2 and (key := _valued_key(rest[-2])):
            _assign(play, key, rest[-1], keep=True)
            del rest[-2:]
        else:
            break
    # A `--word` is an option wherever it stands (this server's own `--loop --volume`);
    # the options at the end were typed after it, so theirs stand.
    early = Play("")
    name: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        lowered = word.casefold()
        if not lowered.startswith("--") or lowered == "--":
            name.append(word)
        elif lowered in _LOOP:
            _set_loop(early, _LOOP[lowered], keep=False)
        elif pair := _equals_option(lowered):
            _assign(early, pair[0], pair[1], keep=False)
        elif key := _valued_key(lowered):
            if index + 1 >= len(rest):
                raise Refusal(_("{o} needs a value."), o=word)
            index += 1
            _assign(early, key, rest[index], keep=False)
        else:
            raise _unknown(word)
        index += 1
    for field in ("loop", "volume", "fade_ms"):
        if getattr(play, field) is None:
            setattr(play, field, getattr(early, field))
    play.name = " ".join(name).strip()
    return play


# The fields `.audio set` describes a track with.
TRACK_FIELDS = ("title", "license", "source", "tags")
# A word that starts a field: `name=` (what follows `=` is the value's first word).
_FIELD = re.compile(r"^(?P<key>[^\s=]+)=(?P<value>.*)$", re.DOTALL)


def track_fields(words: list[str]) -> list[tuple[str, str]]:
    """`.audio set`'s words after the track as (field, value) pairs. An unquoted value
    runs until the next `field=`, so `title=Harbour bell license=CC0` is a title of
    two words; a quoted one (`"title=Harbour bell"`, `title="Harbour bell"`) is one
    word already. Raises `Refusal` for an unknown field, or words before the first one."""
    pairs: list[tuple[str, str]] = []
    for word in words:
        found = _FIELD.match(word)
        if found and found["key"].casefold() in TRACK_FIELDS:
            pairs.append((found["key"].casefold(), found["value"]))
        elif not pairs or (found and found["key"].isalpha()):
            # Words before any field, or `titel=…`: a mistyped field is refused, never
            # taken as words of the value before it.
            raise _unknown_field(found["key"] if found else word)
        else:
            key, value = pairs[-1]
            pairs[-1] = (key, f"{value} {word}" if value else word)
    return pairs


def _unknown_field(word: str) -> Refusal:
    return Refusal(_("Unknown field {k}: use title, license, source or tags."), k=word[:40])
