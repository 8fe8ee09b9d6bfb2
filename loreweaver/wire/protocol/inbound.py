"""Client-to-server frames, validated in one place.

A text message becomes one of these models or a `FrameError`; nothing else reaches
the session's handlers. Unknown fields are ignored (minor versions are additive),
wrong types are not.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

# The largest magnitude a number in a frame may have: every JSON parser agrees on
# integers up to 2**53 (JavaScript's safe range), and nothing the protocol counts
# (sizes, timestamps) comes near it. Larger numbers would be converted (to float, to a
# database column) somewhere, so they are refused where they arrive.
NUMBER_LIMIT = 2**53
Number = Annotated[StrictInt | float, Field(ge=-NUMBER_LIMIT, le=NUMBER_LIMIT)]
# What no string of a frame may hold: NUL (Postgres refuses it, SQLite would store it)
# and lone surrogates (not Unicode; they cannot be written back out as UTF-8). A text
# message that was not UTF-8 reaches the parser with its bad bytes as lone surrogates.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class FrameError(Exception):
    """A frame that cannot be accepted; `code` is the wire error code."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail


class Inbound(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)


class ClientInfo(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    name: StrictStr | None = None
    version: StrictStr | None = None


class Join(Inbound):
    type: Literal["join"]
    key: StrictStr
    name: StrictStr | None = None
    client: ClientInfo | None = None
    locale: StrictStr | None = None


class Input(Inbound):
    type: Literal["input"]
    text: StrictStr


class Ping(Inbound):
    type: Literal["ping"]
    t: Number


class MediaOffer(Inbound):
    type: Literal["media_offer"]
    name: StrictStr
    mime: StrictStr
    size: StrictInt
    sha256: StrictStr


class MediaSetEnabled(Inbound):
    type: Literal["media_set_enabled"]
    enabled: StrictBool


class AvatarSet(Inbound):
    type: Literal["avatar_set"]
    hash: StrictStr
    # Clients name no one; a frame that names another character or member is refused.
    character: StrictStr | None = None
    user: StrictStr | None = None


class PanelIntent(Inbound):
    type: Literal["panel_intent"]
    panel: StrictStr
    kind: Literal["choice", "input", "roll"]
    value: StrictStr


class ListPackCards(Inbound):
    type: Literal["list_pack_cards"]


class ViewerLocale(Inbound):
    """An addition of this server (docs/rules.md, "The room's language"): the language
    of the viewer's own screen changed, so `state` labels follow it. The browser table
    sends it; other clients never do."""

    type: Literal["viewer_locale"]
    locale: Literal["en", "zh"]


# --- admin frames (keeper-gated; handlers arrive with the admin issue) ----------------------


class AdminGetConfig(Inbound):
    type: Literal["admin_get_config"]


class AdminSetModel(Inbound):
    type: Literal["admin_set_model"]
    provider: StrictStr
    chat_model: StrictStr | None = None
    api_key: StrictStr | None = None
    base_url: StrictStr | None = None


class AdminSetImagegen(Inbound):
    type: Literal["admin_set_imagegen"]
    provider: StrictStr
    model: StrictStr
    base_url: StrictStr | None = None
    api_key: StrictStr | None = None
    size: StrictStr | None = None


class AdminListModels(Inbound):
    type: Literal["admin_list_models"]
    provider: StrictStr | None = None
    api_key: StrictStr | None = None
    base_url: StrictStr | None = None


class AdminListKeys(Inbound):
    type: Literal["admin_list_keys"]


class AdminMintKey(Inbound):
    type: Literal["admin_mint_key"]
    room: StrictStr | None = None
    name: StrictStr | None = None
    role: Literal["player", "keeper"] | None = None
    purpose: Literal["join", "chat_bind"] | None = None
    expires_in: StrictInt | None = None


class AdminUpdateKey(Inbound):
    type: Literal["admin_update_key"]
    id: StrictStr
    room: StrictStr | None = None
    name: StrictStr | None = None
    role: Literal["player", "keeper"] | None = None


class AdminDeleteKey(Inbound):
    type: Literal["admin_delete_key"]
    id: StrictStr


class AdminDeleteRoom(Inbound):
    type: Literal["admin_delete_room"]
    room: StrictStr


class AdminExportRoom(Inbound):
    type: Literal["admin_export_room"]
    room: StrictStr
    path: StrictStr | None = None


class AdminImportRoom(Inbound):
    type: Literal["admin_import_room"]
    path: StrictStr
    room: StrictStr | None = None


class AdminDeleteRoomData(Inbound):
    type: Literal["admin_delete_room_data"]
    room: StrictStr
    backup: StrictBool | None = None
    path: StrictStr | None = None


class AdminResetRoom(Inbound):
    type: Literal["admin_reset_room"]
    room: StrictStr
    scope: Literal["story", "chars", "all"] | None = None


class AdminListSkills(Inbound):
    type: Literal["admin_list_skills"]
    locale: StrictStr | None = None


class AdminEnableSkill(Inbound):
    type: Literal["admin_enable_skill"]
    id: StrictStr
    on: StrictBool
    locale: StrictStr | None = None


class AdminListRules(Inbound):
    type: Literal["admin_list_rules"]


class AdminGenerate(Inbound):
    type: Literal["admin_generate"]
    kind: Literal["skill", "rule", "module"]
    description: StrictStr


class AdminUpdateServer(Inbound):
    type: Literal["admin_update_server"]


AnyInbound = Annotated[
    Join
    | Input
    | Ping
    | MediaOffer
    | MediaSetEnabled
    | AvatarSet
    | PanelIntent
    | ListPackCards
    | ViewerLocale
    | AdminGetConfig
    | AdminSetModel
    | AdminSetImagegen
    | AdminListModels
    | AdminListKeys
    | AdminMintKey
    | AdminUpdateKey
    | AdminDeleteKey
    | AdminDeleteRoom
    | AdminExportRoom
    | AdminImportRoom
    | AdminDeleteRoomData
    | AdminResetRoom
    | AdminListSkills
    | AdminEnableSkill
    | AdminListRules
    | AdminGenerate
    | AdminUpdateServer,
    Field(discriminator="type"),
]

_adapter: TypeAdapter[AnyInbound] = TypeAdapter(AnyInbound)
KNOWN_TYPES = frozenset(
    model.model_fields["type"].annotation.__args__[0]  # the Literal's single value
    for model in AnyInbound.__origin__.__args__  # type: ignore[attr-defined]
)


class _OutOfRange(ValueError):
    """A number beyond NUMBER_LIMIT (or not finite)."""


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _bounded_int(digits: str) -> int:
    # Checked on the text, before Python builds a huge integer from it.
    if len(digits.lstrip("-")) > 16 or abs(value := int(digits)) > NUMBER_LIMIT:
        raise _OutOfRange(digits)
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > NUMBER_LIMIT:
        raise _OutOfRange(text)
    return value


# One decoder for every frame: `json.loads` with these hooks makes a new one at each call.
_DECODER = json.JSONDecoder(
    parse_constant=_reject_constant, parse_int=_bounded_int, parse_float=_finite_float
)


def _unstorable_string(document: object) -> bool:
    """Whether any key or string value anywhere in the document holds NUL or a lone
    surrogate (walked without recursion: the document may be deeply nested)."""
    pending = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if _UNSTORABLE.search(value):
                return True
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return False


def parse_frame(text: str) -> Inbound:
    """Parse and validate one control frame, or raise `FrameError('bad_frame')`."""
    try:
        document = _DECODER.decode(text)
    except _OutOfRange:
        raise FrameError("bad_frame", f"a number is beyond ±{NUMBER_LIMIT}") from None
    except (ValueError, RecursionError):
        raise FrameError("bad_frame", "not JSON") from None
    if _unstorable_string(document):
        raise FrameError("bad_frame", "a string holds NUL or text that is not valid UTF-8")
    if not isinstance(document, dict):
        raise FrameError("bad_frame", "a frame is a JSON object")
    frame_type = document.get("type")
    if not isinstance(frame_type, str):
        raise FrameError("bad_frame", "a frame needs a string type")
    if frame_type not in KNOWN_TYPES:
        raise FrameError("bad_frame", f"unknown frame type {frame_type[:40]!r}")
    try:
        return _adapter.validate_python(document)
    except PydanticValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"][1:]) or "frame"
        # A malformed offer has its own media code (docs/decisions.md, "Errors").
        code = "media_bad_offer" if frame_type == "media_offer" else "bad_frame"
        raise FrameError(code, f"{frame_type}: {where}: {problem['msg']}") from None
