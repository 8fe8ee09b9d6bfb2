"""The audio desk (docs/rules.md, "The audio desk"): the keeper names a track of
the room's audio library and every client plays it on a layer. The server never
plays audio: it broadcasts `audio_control` (with `server_ts`) and keeps what bgm and
ambience are doing, so a late joiner gets `audio_state` and starts at the right place.

`.audio list`, `.audio import <pack>`, `.audio set <audio> title=… license=… source=…
tags=a,b`; `.bgm <audio> [loop|once] [volume v] [fade ms]` (the reference's grammar,
which Loreweaver Studio sends: `keeper/audio_grammar.py`; `play` is optional and
`--loop --volume 0.7 --fade 2000` read the same), `.bgm stop|pause|resume|volume <v>`;
the same for `.ambience` (`.amb`) and `.sfx`. Music and ambience loop unless told
`once`; a sound effect plays once unless told `loop`.
"""

from __future__ import annotations

import re
import secrets
import time

from django.db.models import Q

from base import frames
from base.i18n import Refusal, _
from keeper.audio_grammar import (
    ACTION_WORDS,
    VOLUME_WORDS,
    Play,
    parse_play,
    parse_volume,
    track_fields,
    words,
)
from keeper.commands import Caller, CommandReply, command
from media_store.models import AudioLayer, MediaItem, MediaKind
from media_store.services import Uploader
from packs.pack_audio import import_pack_audio

# How a layer and what was done to it read in a reply (the ids are the commands' words).
LAYER_NAMES = {"bgm": _("music"), "ambience": _("ambience"), "sfx": _("effects")}
DONE_WORDS = {"stop": _("stopped"), "pause": _("paused"), "resume": _("resumed")}
# Each layer's loop when the line says neither loop nor once (the reference's, which
# Studio's deck shows): music and ambience go on, an effect is heard once.
DEFAULT_LOOP = {"bgm": True, "ambience": True, "sfx": False}
STATEFUL = ("bgm", "ambience")
USAGE = _(
    "Use .{layer} <audio> [loop|once] [volume v] [fade ms] (play before the track is optional); "
    ".{layer} stop, pause, resume or volume <v>."
)


def find_track(room_id: int, name: str) -> MediaItem:
    """An audio item of the room by the start of its hash (8+ hex digits), its title or
    file name (any case), or else the one title or file name containing `name`.
    Raises `Refusal` when none, or several, match."""
    audio = MediaItem.objects.filter(room_id=room_id, kind=MediaKind.AUDIO).order_by("id")
    name = name.strip()
    if re.fullmatch(r"[0-9a-fA-F]{8,64}", name):
        found = audio.filter(sha256__startswith=name.lower()).first()
        if found:
            return found
    exact = audio.filter(title__iexact=name).first() or audio.filter(name__iexact=name).first()
    if exact:
        return exact
    close = list(audio.filter(Q(title__icontains=name) | Q(name__icontains=name))[:6]) if name else []
    if len(close) == 1:
        return close[0]
    if close:
        labels = ", ".join(item.title or item.name for item in close[:5])
        raise Refusal(_("Several audio match {n}: {names}. Name one exactly."), n=name[:120], names=labels)
    raise Refusal(_("No audio called {n}; see .audio list."), n=name[:120])


def _control(layer: str, action: str, item: MediaItem | None = None, **extra: object) -> dict:
    frame = frames.audio_control(id=secrets.token_hex(8), action=action, layer=layer, server_ts=time.time())
    if item is not None:
        frame.update(hash=item.sha256, mime=item.mime, name=item.name)
        if item.title:
            frame["title"] = item.title
    frame.update({k: v for k, v in extra.items() if v is not None})
    return frame


def _layer(caller: Caller, layer: str) -> str:
    """A layer's name as the caller reads it ("music", "音乐")."""
    return caller.say(LAYER_NAMES[layer]) if layer in LAYER_NAMES else layer


def _play(layer: str, play: Play, caller: Caller) -> CommandReply:
    item = find_track(caller.room_id, play.name)
    loop = DEFAULT_LOOP[layer] if play.loop is None else play.loop
    if layer in STATEFUL:
        AudioLayer.objects.update_or_create(
            room_id=caller.room_id,
            layer=layer,
            defaults={
                "sha256": item.sha256,
                "mime": item.mime,
                "name": item.name,
                "title": item.title,
                "playing": True,
                "volume": play.volume,
                "loop": loop,
                "started_at": time.time(),
                "paused_at_position": None,
            },
        )
    frame = _control(layer, "play", item, loop=loop, volume=play.volume, fade_ms=play.fade_ms, position_ms=0)
    return CommandReply(
        caller.say(_("{layer}: playing {t}."), layer=_layer(caller, layer), t=item.title or item.name),
        live=[frame],
    )


def _transport(layer: str, action: str, caller: Caller) -> CommandReply:
    """stop, pause or resume: a sound effect has no state to keep, only the clients'."""
    extra: dict = {}
    if layer in STATEFUL:
        state = AudioLayer.objects.filter(room_id=caller.room_id, layer=layer).first()
        if state is None or not state.sha256:
            return CommandReply(caller.say(_("Nothing is on {layer}."), layer=_layer(caller, layer)))
        now = time.time()
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
    return CommandReply(
        caller.say(_("{layer}: {a}."), layer=_layer(caller, layer), a=caller.say(DONE_WORDS[action])),
        live=[_control(layer, action, None, **extra)],
    )


def _volume(layer: str, values: list[str], caller: Caller) -> CommandReply:
    if len(values) != 1:
        return CommandReply(caller.say(USAGE, layer=layer))
    volume = parse_volume(values[0])
    if layer in STATEFUL:
        AudioLayer.objects.filter(room_id=caller.room_id, layer=layer).update(volume=volume)
    return CommandReply(
        caller.say(_("{layer}: volume {v}."), layer=_layer(caller, layer), v=volume),
        live=[_control(layer, "volume", None, volume=volume)],
    )


def _layer_command(layer: str, arguments: str, caller: Caller) -> CommandReply:
    parts = words(arguments)
    first = parts[0].casefold() if parts else ""
    try:
        if first in ACTION_WORDS and len(parts) == 1:
            return _transport(layer, ACTION_WORDS[first], caller)
        if first in VOLUME_WORDS:
            return _volume(layer, parts[1:], caller)
        play = parse_play(parts)
        if not play.name:
            return CommandReply(caller.say(USAGE, layer=layer))
        return _play(layer, play, caller)
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))


@command(
    "bgm",
    help=_("music: .bgm <audio> [loop|once] [volume v] [fade ms], stop|pause|resume|volume <v>"),
    keeper_only=True,
)
def bgm(arguments: str, caller: Caller) -> CommandReply:
    return _layer_command("bgm", arguments, caller)


@command("ambience", "amb", help=_("ambient sound: like .bgm"), keeper_only=True)
def ambience(arguments: str, caller: Caller) -> CommandReply:
    return _layer_command("ambience", arguments, caller)


@command(
    "sfx",
    help=_("a sound effect, once unless told loop: .sfx <audio> [loop|once] [volume v], stop"),
    keeper_only=True,
)
def sfx(arguments: str, caller: Caller) -> CommandReply:
    return _layer_command("sfx", arguments, caller)


@command(
    "audio",
    help=_(
        "the audio library: .audio list, .audio import <pack>, "
        ".audio set <audio> title=… license=… source=… tags=a,b"
    ),
    keeper_only=True,
)
def audio(arguments: str, caller: Caller) -> CommandReply:
    parts = words(arguments)
    word = parts[0].casefold() if parts else "list"
    try:
        if word in ("list", "ls", "show", "列表", "查看"):
            return _list(caller)
        if word in ("import", "导入", "導入"):
            return _import(parts[1:], caller)
        if word in ("set", "设置", "設置") and len(parts) >= 3:
            return _set(parts[1], parts[2:], caller)
    except Refusal as refused:
        return CommandReply(refused.message(caller.locale))
    return CommandReply(
        caller.say(
            _(
                "Use .audio list, .audio import <pack> or "
                ".audio set <audio> title=… license=… source=… tags=a,b."
            )
        )
    )


def _list(caller: Caller) -> CommandReply:
    items = MediaItem.objects.filter(room_id=caller.room_id, kind=MediaKind.AUDIO).order_by("id")
    lines = [
        f"{i.sha256[:10]}  {i.title or i.name}  ({i.mime}, {i.size // 1024} KiB)"
        + (f"  {i.license}" if i.license else "")
        + (f"  [{', '.join(i.tags)}]" if i.tags else "")
        for i in items
    ]
    return CommandReply("\n".join(lines) or caller.say(_("No audio yet: upload some first.")))


def _import(rest: list[str], caller: Caller) -> CommandReply:
    if len(rest) != 1:
        return CommandReply(caller.say(_("Use .audio import <pack id> (an installed pack: see .pack list).")))
    done = import_pack_audio(caller.room_id, rest[0], Uploader(caller.room_id, caller.member_id, caller.name))
    lines = []
    if done.items:
        lines.append(
            caller.say(
                _("Imported {count} audio from {pack}: {names}."),
                count=len(done.items),
                pack=done.pack.pack_id,
                names=", ".join(item.title or item.name for item in done.items),
            )
        )
    elif not done.left_out:
        lines.append(caller.say(_("The pack {pack} has no audio."), pack=done.pack.pack_id))
    if done.left_out:
        lines.append(
            caller.say(
                _("Left out (too large, over the room's audio storage, or damaged): {names}."),
                names=", ".join(name for name, _code in done.left_out),
            )
        )
    if done.more:
        lines.append(
            caller.say(_("{count} more audio files were not imported: one import takes 24."), count=done.more)
        )
    return CommandReply("\n".join(lines), media=[item.id for item in done.items])


def _set(name: str, words: list[str], caller: Caller) -> CommandReply:
    item = find_track(caller.room_id, name)
    for key, value in track_fields(words):
        if key == "tags":
            item.tags = [t.strip()[:40] for t in value.split(",") if t.strip()][:20]
        else:
            setattr(item, key, value.strip()[: 200 if key != "source" else 500])
    item.save(update_fields=["title", "license", "source", "tags"])
    return CommandReply(caller.say(_("Saved.")), live=[item.as_frame()])
