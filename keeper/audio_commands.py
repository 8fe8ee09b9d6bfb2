"""The audio desk (docs/rules.md, "The audio desk"): the keeper names a track of
the room's audio library and every client plays it on a layer. The server never
plays audio: it broadcasts `audio_control` (with `server_ts`) and keeps what bgm and
ambience are doing, so a late joiner gets `audio_state` and starts at the right place.

`.audio list`, `.audio set <audio> title=… license=… source=… tags=a,b`;
`.bgm play <audio> [--loop] [--volume 0.7] [--fade 2000]`, `.bgm stop|pause|resume`;
the same for `.ambience` (`.amb`); `.sfx <audio> [--volume v]`.
"""

from __future__ import annotations

import re
import secrets
import shlex
import time

from base import frames
from base.i18n import _
from keeper.commands import Caller, CommandReply, command
from media_store.models import AudioLayer, MediaItem, MediaKind

_OPTION_VALUE = {"--volume", "--fade"}
# How a layer and what was done to it read in a reply (the ids are the commands' words).
LAYER_NAMES = {"bgm": _("music"), "ambience": _("ambience"), "sfx": _("effects")}
ACTION_WORDS = {"stop": _("stopped"), "pause": _("paused"), "resume": _("resumed")}


def _track(room_id: int, name: str) -> MediaItem | None:
    """An audio item by hash (or its first 8+ hex digits), title or file name."""
    audio = MediaItem.objects.filter(room_id=room_id, kind=MediaKind.AUDIO)
    name = name.strip()
    if re.fullmatch(r"[0-9a-f]{8,64}", name):
        found = audio.filter(sha256__startswith=name).first()
        if found:
            return found
    return audio.filter(title__iexact=name).first() or audio.filter(name__iexact=name).first()


def _words(arguments: str) -> list[str]:
    """The arguments split like a shell would (quotes group words), or on spaces."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def _no_track(caller: Caller, name: str) -> CommandReply:
    return CommandReply(caller.say(_("No audio called {n}; see .audio list."), n=name))


def _control(layer: str, action: str, item: MediaItem | None = None, **extra: object) -> dict:
    frame = frames.audio_control(id=secrets.token_hex(8), action=action, layer=layer, server_ts=time.time())
    if item is not None:
        frame.update(hash=item.sha256, mime=item.mime, name=item.name)
        if item.title:
            frame["title"] = item.title
    frame.update({k: v for k, v in extra.items() if v is not None})
    return frame


def _parse_play(arguments: list[str], caller: Caller) -> tuple[str, dict] | str:
    words: list[str] = []
    options: dict = {"loop": False}
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word == "--loop":
            options["loop"] = True
        elif word in _OPTION_VALUE:
            if index + 1 >= len(arguments):
                return caller.say(_("{o} needs a value."), o=word)
            raw = arguments[index + 1]
            index += 1
            try:
                if word == "--volume":
                    options["volume"] = float(raw)
                    if not 0.0 <= options["volume"] <= 1.0:
                        raise ValueError
                else:
                    options["fade_ms"] = int(raw)
                    if not 0 <= options["fade_ms"] <= 600_000:
                        raise ValueError
            except ValueError:
                return caller.say(_("--volume is 0 to 1; --fade is milliseconds."))
        else:
            words.append(word)
        index += 1
    return " ".join(words), options


def _layer_command(layer: str, arguments: str, caller: Caller) -> CommandReply:
    parts = _words(arguments)
    action = parts[0].lower() if parts else ""
    state = AudioLayer.objects.filter(room_id=caller.room_id, layer=layer).first()
    now = time.time()
    if action == "play":
        parsed = _parse_play(parts[1:], caller)
        if isinstance(parsed, str):
            return CommandReply(parsed)
        name, options = parsed
        item = _track(caller.room_id, name)
        if item is None:
            return _no_track(caller, name)
        AudioLayer.objects.update_or_create(
            room_id=caller.room_id,
            layer=layer,
            defaults={
                "sha256": item.sha256,
                "mime": item.mime,
                "name": item.name,
                "title": item.title,
                "playing": True,
                "volume": options.get("volume"),
                "loop": options["loop"],
                "started_at": now,
                "paused_at_position": None,
            },
        )
        frame = _control(layer, "play", item, **options, position_ms=0)
        return CommandReply(
            caller.say(_("{layer}: playing {t}."), layer=_layer(caller, layer), t=item.title or item.name),
            live=[frame],
        )
    if action in ("stop", "pause", "resume"):
        if state is None or not state.sha256:
            return CommandReply(caller.say(_("Nothing is on {layer}."), layer=_layer(caller, layer)))
        extra: dict = {}
        if action == "stop":
            state.delete()
        elif action == "pause" and state.playing:
            state.paused_at_position = now - (state.started_at or now)
            state.playing, state.started_at = False, None
            state.save()
            extra["position_ms"] = int(state.paused_at_position * 1000)
        elif action == "resume" and not state.playing:
            position = state.paused_at_position or 0.0
            state.playing, state.started_at, state.paused_at_position = True, now - position, None
            state.save()
            extra["position_ms"] = int(position * 1000)
        frame = _control(layer, action, None, **extra)
        return CommandReply(
            caller.say(_("{layer}: {a}."), layer=_layer(caller, layer), a=caller.say(ACTION_WORDS[action])),
            live=[frame],
        )
    if action == "volume" and len(parts) == 2:
        try:
            volume = float(parts[1])
            if not 0.0 <= volume <= 1.0:
                raise ValueError
        except ValueError:
            return CommandReply(caller.say(_("Volume is 0 to 1.")))
        AudioLayer.objects.filter(room_id=caller.room_id, layer=layer).update(volume=volume)
        return CommandReply(
            caller.say(_("{layer}: volume {v}."), layer=_layer(caller, layer), v=volume),
            live=[_control(layer, "volume", None, volume=volume)],
        )
    return CommandReply(
        caller.say(
            _(
                "Use .{layer} play <audio> [--loop] [--volume v] [--fade ms]; "
                "stop, pause, resume; volume <v>."
            ),
            layer=layer,
        )
    )


def _layer(caller: Caller, layer: str) -> str:
    """A layer's name as the caller reads it ("music", "音乐")."""
    return caller.say(LAYER_NAMES[layer]) if layer in LAYER_NAMES else layer


@command(
    "bgm",
    help=_("music: .bgm play <audio> [--loop] [--volume v] [--fade ms], stop|pause|resume"),
    keeper_only=True,
)
def bgm(arguments: str, caller: Caller) -> CommandReply:
    return _layer_command("bgm", arguments, caller)


@command("ambience", "amb", help=_("ambient sound: like .bgm"), keeper_only=True)
def ambience(arguments: str, caller: Caller) -> CommandReply:
    return _layer_command("ambience", arguments, caller)


@command(
    "sfx",
    help=_("a sound effect, once: .sfx <audio> [--volume v]"),
    keeper_only=True,
)
def sfx(arguments: str, caller: Caller) -> CommandReply:
    parts = _words(arguments)
    parsed = _parse_play(parts, caller)
    if isinstance(parsed, str):
        return CommandReply(parsed)
    name, options = parsed
    item = _track(caller.room_id, name)
    if item is None:
        return _no_track(caller, name)
    options.pop("loop", None)
    return CommandReply(
        caller.say(_("sfx: {t}."), t=item.title or item.name),
        live=[_control("sfx", "play", item, **options)],
    )


@command(
    "audio",
    help=_("the audio library: .audio list, .audio set <audio> title=… license=… source=… tags=a,b"),
    keeper_only=True,
)
def audio(arguments: str, caller: Caller) -> CommandReply:
    parts = _words(arguments)
    if not parts or parts[0].lower() == "list":
        items = MediaItem.objects.filter(room_id=caller.room_id, kind=MediaKind.AUDIO).order_by("id")
        lines = [
            f"{i.sha256[:10]}  {i.title or i.name}  ({i.mime}, {i.size // 1024} KiB)"
            + (f"  [{', '.join(i.tags)}]" if i.tags else "")
            for i in items
        ]
        return CommandReply("\n".join(lines) or caller.say(_("No audio yet: upload some first.")))
    if parts[0].lower() != "set" or len(parts) < 3:
        return CommandReply(
            caller.say(
                _("Use .audio list or .audio set <audio> title=… license=… source=… tags=a,b."),
            )
        )
    item = _track(caller.room_id, parts[1])
    if item is None:
        return _no_track(caller, parts[1])
    for pair in parts[2:]:
        key, _sep, value = pair.partition("=")
        key = key.lower()
        if key in ("title", "license", "source"):
            setattr(item, key, value.strip()[: 200 if key != "source" else 500])
        elif key == "tags":
            item.tags = [t.strip()[:40] for t in value.split(",") if t.strip()][:20]
        else:
            return CommandReply(
                caller.say(
                    _("Unknown field {k}: use title, license, source or tags."),
                    k=key,
                )
            )
    item.save(update_fields=["title", "license", "source", "tags"])
    return CommandReply(caller.say(_("Saved.")), live=[item.as_frame()])
