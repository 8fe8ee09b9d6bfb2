"""Outbound frames of loreweaver protocol 2.3, each built here and only here.

Every layer builds the frames it sends with these functions (the table its
transcript lines, the game its dice and state, the wire everything else), so a
frame's shape is written once. `for_viewer` gives a stored or broadcast frame the
form one viewer receives: dice labels are kept in both languages and picked per
viewer just before the frame is written.
"""

from __future__ import annotations

from typing import Any

# --- the story ------------------------------------------------------------------------


def narrative(frame_id: str, speaker: str, text: str, *, text_format: str = "plain", name: str = "") -> dict:
    """A story line (`speaker`: player, kp, npc or system); `name` when it has one."""
    frame = {"type": "narrative", "id": frame_id, "speaker": speaker, "text": text, "format": text_format}
    if name:
        frame["name"] = name
    return frame


def narrative_delta(draft_id: str, speaker: str, text: str) -> dict:
    """A piece of a line still being streamed."""
    return {"type": "narrative_delta", "id": draft_id, "speaker": speaker, "text": text}


def system(text: str, level: str = "info") -> dict:
    """A server notice (`level`: info or warn)."""
    return {"type": "system", "level": level, "text": text}


def dice(actor: str, kind: str, expr: str, rolls: list[int], total: int, /, **extra: Any) -> dict:
    """A roll (`kind`: roll, check, opposed, init, subsystem), with the fields of its kind
    (target, outcome, detail, skill ...); fields that are None are left out."""
    frame = {"type": "dice", "actor": actor, "kind": kind, "expr": expr, "rolls": rolls, "total": total}
    frame.update({key: value for key, value in extra.items() if value is not None})
    return frame


def turn_busy(actor: str, activity: str | None = None, round_number: int | None = None) -> dict:
    """A Keeper turn runs (with what it is doing, in a tool round)."""
    frame: dict = {"type": "turn_status", "status": "busy", "actor": actor}
    if activity is not None:
        frame.update(activity=activity, round=round_number)
    return frame


def turn_idle() -> dict:
    """The turn ended."""
    return {"type": "turn_status", "status": "idle"}


# --- the connection -------------------------------------------------------------------


def welcome(
    *,
    protocol: str,
    features: list[str],
    room: str,
    member_id: str,
    name: str,
    role: str,
    locale: str,
    server: str,
    version: str,
) -> dict:
    """The answer to a good join."""
    return {
        "type": "welcome",
        "protocol": protocol,
        "features": features,
        "room": room,
        "you": {"id": member_id, "name": name, "role": role},
        "locale": locale,
        "server": server,
        "version": version,
    }


def presence(players: list[dict]) -> dict:
    """Who is online: one entry per member, each with at least `id` and `name` (and the
    additive fields docs/decisions.md lists)."""
    return {
        "type": "presence",
        "players": [{"id": p["id"], "name": p["name"], "online": True, **p} for p in players],
        "online": len(players),
    }


def state(**fields: Any) -> dict:
    """One viewer's view of the table (built by `keeper.state`)."""
    return {"type": "state", **fields}


def ui_manifest(panels: list[dict]) -> dict:
    """The viewer's whole list of module panels (possibly empty)."""
    return {"type": "ui_manifest", "panels": panels}


def ui(blocks: list[dict], **options: Any) -> dict:
    """Declarative blocks a hook or the Stage Director presents (`panel`, `id`, `replace`)."""
    return {"type": "ui", "blocks": blocks, **options}


def panel_event(panel: str, payload: Any) -> dict:
    """A hook's payload for the code of one panel."""
    return {"type": "panel_event", "panel": panel, "payload": payload}


def error(code: str, message: str) -> dict:
    """An error the client branches on by `code`; `message` tells a person what to do."""
    return {"type": "error", "code": code, "message": message}


def pong(t: int | float) -> dict:
    """The answer to a ping, with the client's own `t`."""
    return {"type": "pong", "t": t}


def pack_cards(cards: list[dict]) -> dict:
    """The cards of the room's packs."""
    return {"type": "pack_cards", "cards": cards}


# --- media ------------------------------------------------------------------------------


def media_item(kind: str, /, **fields: Any) -> dict:
    """A stored file: `media` for an image, `audio_library_item` for audio."""
    return {"type": "media" if kind == "image" else "audio_library_item", **fields}


def media_accept(upload_id: str, existing: dict | None = None) -> dict:
    """The answer to an offer: an upload id, or the file the room already has."""
    if existing is None:
        return {"type": "media_accept", "upload_id": upload_id}
    field = "media" if existing["type"] == "media" else "audio"
    return {"type": "media_accept", "upload_id": "", "existing": True, field: existing}


def media_enabled(enabled: bool) -> dict:
    """Whether members may upload."""
    return {"type": "media_enabled", "enabled": enabled}


def audio_state(layers: list[dict]) -> dict:
    """The audio desk as it stands (for a joiner)."""
    return {"type": "audio_state", "layers": layers}


def audio_control(**fields: Any) -> dict:
    """A change on the audio desk, played along by every client."""
    return {"type": "audio_control", **fields}


# --- keeper administration ------------------------------------------------------------


def admin_error(code: str, message: str) -> dict:
    """An admin request that could not be done (the connection stays)."""
    return {"type": "admin_error", "code": code, "message": message}


def admin_reply(frame_type: str, /, **fields: Any) -> dict:
    """An admin answer: `admin_keys`, `admin_room_op`, `admin_config`, `admin_models`,
    `admin_skills`, `admin_rules`, `admin_generated` or `admin_update`."""
    return {"type": frame_type, **fields}


# --- per viewer ---------------------------------------------------------------------------


def _pick(label: object, locale: str) -> object:
    if isinstance(label, dict):
        return label.get(locale) or label.get("en", "")
    return label


def for_viewer(frame: dict, locale: str) -> dict:
    """`frame` as one viewer receives it: every dice label in the viewer's language."""
    if frame.get("type") != "dice":
        return frame
    return dice_for_viewer(frame, locale)


def dice_for_viewer(frame: dict, locale: str) -> dict:
    """A dice frame's labels in `locale`, whether or not the frame still names its type
    (the copies hooks keep drop it)."""
    frame = dict(frame)
    if "outcome" in frame:
        frame["outcome"] = {**frame["outcome"], "label": _pick(frame["outcome"]["label"], locale)}
    detail = frame.get("detail")
    if isinstance(detail, dict) and ("left" in detail or "right" in detail):
        detail = dict(detail)
        for side in ("left", "right"):
            if isinstance(detail.get(side), dict) and "outcome" in detail[side]:
                outcome = detail[side]["outcome"]
                detail[side] = {
                    **detail[side],
                    "outcome": {**outcome, "label": _pick(outcome["label"], locale)},
                }
        frame["detail"] = detail
    return frame
