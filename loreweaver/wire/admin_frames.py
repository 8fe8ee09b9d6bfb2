"""Keeper admin frames (protocol "Admin frames").

Answered only on a keeper connection, and only for the caller's own room: anything
else is `admin_error forbidden` before anything is read or changed. Keys, room
backups, resets, the model configuration (keys masked, each bound to its endpoint)
skills, the forge (`admin_generate`) and the rule list are here; self-update is run
by the session (`loreweaver.wire.self_update`).
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from channels.db import database_sync_to_async

from base import frames
from base.i18n import _, say
from keeper import forge, skill_catalog
from keeper.llm import config as llm_config
from keeper.llm import grants
from keeper.llm.endpoints import EndpointRefused, refusal_in
from keeper.llm.providers import CATALOG, OFFLINE
from keeper.rules.packs import BUILT_IN, catalog
from loreweaver.wire.protocol import inbound
from rooms import backups, services
from rooms.choices import Role
from rooms.held_keys import HeldKey, room_keys_held

MESSAGES = {
    "forbidden": _("Only a keeper of this room may do that."),
    "other_room": _("A keeper manages their own room only; other rooms are for the operator console."),
    "not_found": _("No key with that id in this room."),
    "last_keeper": _("That is the room's last keeper key: mint another keeper key first."),
    "bad_request": _("That request is not valid: {detail}"),
    "not_yet": _("This server does not handle {what} yet."),
    "no_backup": _("This room has no backup called {name}."),
    "backup_failed": _("The backup operation failed: {detail}"),
    "not_configured": _("This server has no update command; the operator sets TRPG_TUI__UPDATE_COMMAND."),
    "update_is_the_operators": _(
        "Updating the server is the operator's: this server does not let room keepers run it "
        "(the operator can allow it with TRPG_ALLOW_REMOTE_UPDATE)."
    ),
    "endpoint_refused": "{detail}",
    "update_running": _("An update of this server is already under way."),
    "no_skill": _("There is no skill called {id}."),
    "unknown_provider": _("Unknown provider {provider}; choose one of: {known}."),
}


@dataclass(frozen=True)
class Admin:
    """The keeper making an admin request."""

    room_id: int
    room_name: str
    is_keeper: bool
    locale: str

    def error(self, code: str, key: str | None = None, **values: object) -> dict:
        """An `admin_error` with its message in this keeper's language."""
        return frames.admin_error(code, say(self.locale, MESSAGES[key or code], **values))


def _utc(moment: datetime.datetime | None) -> str | None:
    """ISO 8601 in UTC, as `admin_keys` carries expiry times."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _key_entry(key: HeldKey, room_name: str) -> dict:
    return {
        "id": key.public_id,
        "key_masked": key.key_masked,
        "room": room_name,
        "name": key.name,
        "role": key.role,
        "purpose": key.purpose,
        "expires_at": _utc(key.expires_at),
    }


def _roster(admin: Admin, minted: services.MintedKey | None = None) -> dict:
    keys = room_keys_held(admin.room_id)
    frame = frames.admin_reply("admin_keys", keys=[_key_entry(k, admin.room_name) for k in keys])
    if minted is not None:
        frame["minted"] = {
            "key": minted.key,
            "room": admin.room_name,
            "name": minted.access_key.name,
            "role": minted.access_key.role,
            "purpose": minted.access_key.purpose,
            "expires_at": _utc(minted.access_key.expires_at),
        }
    return frame


def _list_keys(frame: inbound.AdminListKeys, admin: Admin) -> dict:
    return _roster(admin)


def _mint_key(frame: inbound.AdminMintKey, admin: Admin) -> dict:
    if frame.room not in (None, "", admin.room_name):
        return admin.error("forbidden", "other_room")
    try:
        minted = services.key_mint(
            room=admin.room_name,
            name=frame.name or ("Keeper" if frame.role == "keeper" else "Player"),
            role=frame.role or Role.PLAYER,
            purpose=frame.purpose or "join",
            expires_in=frame.expires_in,
        )
    except services.KeyAdminError as exc:
        return admin.error("bad_request", detail=exc.message(admin.locale))
    return _roster(admin, minted)


def _update_key(frame: inbound.AdminUpdateKey, admin: Admin) -> dict:
    if frame.room not in (None, "", admin.room_name):
        return admin.error("forbidden", "other_room")
    try:
        found = services.room_key_update(
            room_id=admin.room_id, public_id=frame.id, name=frame.name, role=frame.role
        )
    except services.LastKeeperError:
        return admin.error("last_keeper")
    except services.KeyAdminError as exc:
        return admin.error("bad_request", detail=exc.message(admin.locale))
    return _roster(admin) if found else admin.error("not_found")


def _delete_key(frame: inbound.AdminDeleteKey, admin: Admin) -> dict:
    try:
        found = services.room_key_delete(room_id=admin.room_id, public_id=frame.id)
    except services.LastKeeperError:
        return admin.error("last_keeper")
    return _roster(admin) if found else admin.error("not_found")


def _room_op(action: str, room: str, counts: backups.RoomCounts, **extra: object) -> dict:
    return frames.admin_reply(
        "admin_room_op",
        action=action,
        room=room,
        **{k: v for k, v in extra.items() if v is not None},
        keys=counts.keys,
        store_rows=counts.store_rows,
        vector_points=0,
        # Optional on the wire: present when the operation carried or removed files.
        **({"media_files": counts.media_files} if counts.media_files else {}),
    )


def _relative(path: Path) -> str:
    # Replies name the file inside room_backups/, never an absolute server path.
    return path.name


def _delete_room(frame: inbound.AdminDeleteRoom, admin: Admin) -> dict:
    if frame.room != admin.room_name:
        return admin.error("forbidden", "other_room")
    deleted = services.room_keys_delete(room_id=admin.room_id)
    return _room_op("delete", admin.room_name, backups.RoomCounts(keys=deleted, store_rows=0))


async def export_room(frame: inbound.AdminExportRoom, admin: Admin) -> dict:
    """`admin_room_op export`, on a backup thread (`backups.export_in_worker`): the
    room's rows read in one short transaction, then every blob copied into the archive
    outside any transaction, so neither the database thread nor other rooms' turns wait."""
    if frame.room != admin.room_name:
        return admin.error("forbidden", "other_room")
    try:
        path, counts = await asyncio.to_thread(backups.export_in_worker, admin.room_id, frame.path)
    except backups.BackupError as exc:
        return admin.error(exc.code, "backup_failed", detail=str(exc))
    except OSError as exc:
        return admin.error("op_failed", "backup_failed", detail=exc.strerror or str(exc))
    return _room_op("export", admin.room_name, counts, path=_relative(path))


def _import_room(frame: inbound.AdminImportRoom, admin: Admin) -> dict:
    if frame.room not in (None, "", admin.room_name):
        return admin.error("forbidden", "other_room")
    try:
        # Only this room's backups exist for its keeper; restoring another room's
        # backup here is the operator's to do, in the console.
        path = backups.backup_file(backups.backup_of(admin.room_id, frame.path))
    except backups.BackupError as exc:
        if exc.code != "not_found":
            raise
        return admin.error("not_found", "no_backup", name=frame.path)
    restored = backups.room_restore(path, admin.room_name)
    # `safety_backup` (additive) names the backup of the game as it was, which undoes this.
    safety = backups.backup_label(restored.safety) if restored.safety else None
    return _room_op("import", admin.room_name, restored.counts, path=_relative(path), safety_backup=safety)


def _delete_room_data(frame: inbound.AdminDeleteRoomData, admin: Admin) -> dict:
    if frame.room != admin.room_name:
        return admin.error("forbidden", "other_room")
    backup = frame.backup is not False
    counts, path = backups.keeper_delete_data(admin.room_id, backup=backup, name=frame.path)
    return _room_op("delete", admin.room_name, counts, path=_relative(path) if path else None)


def _reset_room(frame: inbound.AdminResetRoom, admin: Admin) -> dict:
    if frame.room != admin.room_name:
        return admin.error("forbidden", "other_room")
    scope = frame.scope or "story"
    counts = backups.keeper_reset(admin.room_id, scope)
    return _room_op("reset", admin.room_name, counts, scope=scope)


def _list_rules(frame: inbound.AdminListRules, admin: Admin) -> dict:
    return frames.admin_reply(
        "admin_rules",
        # `name` is additive: the system's display name in both languages.
        systems=[
            {"id": pack_id, "built_in": pack_id in BUILT_IN, "name": pack.name.model_dump(exclude_none=True)}
            for pack_id, pack in catalog().packs.items()
        ],
    )


def _imagegen_status(room_id: int) -> dict:
    image = llm_config.imagegen(room_id)
    return {
        "provider": image.provider,
        "base_url": image.base_url,
        "model": image.model,
        "size": image.size,
        "api_key_masked": image.key_masked,
        "has_key": bool(image.api_key),
        "configured": image.configured,
        "saved_providers": llm_config.saved_providers(room_id),
    }


def _subscription_status(current: llm_config.LlmConfig) -> str:
    """ "logged_in" / "logged_out" on a subscription path (the room's own sign-in, and
    the operator letting rooms use it), "" on the API-key path."""
    if not current.subscription:
        return ""
    return "logged_in" if current.signed_in else "logged_out"


def _config(frame: inbound.Inbound | None, admin: Admin) -> dict:
    """`admin_config`: the model of the keeper's own room (its choice, or the server's
    when it made none; `override_active` says which)."""
    current = llm_config.resolve(admin.room_id)
    return frames.admin_reply(
        "admin_config",
        provider=current.provider,
        chat_model=current.chat_model,
        base_url=current.base_url,
        api_key_masked=llm_config.key_shown(current),
        providers=[*CATALOG, OFFLINE],
        saved_providers=llm_config.saved_providers(admin.room_id),
        override_active=llm_config.override_active(admin.room_id),
        imagegen=_imagegen_status(admin.room_id),
        using_demo=not current.usable,
        subscription_status=_subscription_status(current),
    )


def config(admin: Admin) -> dict:
    """The `admin_config` of the admin's room, unasked (after its model changed)."""
    return _config(None, admin)


def _unknown_provider(admin: Admin, provider: str) -> dict:
    return admin.error("unknown_provider", provider=provider, known=", ".join([*CATALOG, OFFLINE]))


def _refused(admin: Admin, refused: EndpointRefused) -> dict:
    """`admin_error endpoint_refused`, naming the endpoint and the rule."""
    return admin.error("endpoint_refused", detail=refused.message(admin.locale))


def _set_model(frame: inbound.AdminSetModel, admin: Admin) -> dict:
    """The keeper's own room's model (never another room's, nor the server's)."""
    if frame.provider not in CATALOG and frame.provider != OFFLINE:
        return _unknown_provider(admin, frame.provider)
    try:
        llm_config.configure(admin.room_id, frame.provider, frame.chat_model, frame.api_key, frame.base_url)
    except EndpointRefused as refused:
        return _refused(admin, refused)
    return _config(frame, admin)


def _set_imagegen(frame: inbound.AdminSetImagegen, admin: Admin) -> dict:
    """The keeper's own room's image endpoint."""
    if frame.provider not in CATALOG:
        return _unknown_provider(admin, frame.provider)
    try:
        llm_config.configure_imagegen(
            admin.room_id, frame.provider, frame.model, frame.base_url, frame.api_key, frame.size
        )
    except EndpointRefused as refused:
        return _refused(admin, refused)
    return _config(frame, admin)


def _preview(frame: inbound.AdminListModels, admin: Admin) -> tuple[str, str, str, bool]:
    """What `admin_list_models` may ask, checked against the endpoint policy before
    anything is sent (raises `EndpointRefused`)."""
    provider, endpoint, key = llm_config.preview_target(
        admin.room_id, frame.provider, frame.api_key, frame.base_url
    )
    operator = llm_config.operator_endpoint(admin.room_id, endpoint) if endpoint else True
    if endpoint:
        llm_config.check_endpoint(admin.room_id, endpoint)
    return provider, endpoint, key, operator


async def list_models(frame: inbound.AdminListModels, admin: Admin) -> dict:
    """`admin_models`; the endpoint is asked outside the database thread, and only
    when the endpoint policy lets this room reach it (else `admin_error`)."""
    if frame.provider and frame.provider not in CATALOG and frame.provider != OFFLINE:
        return _unknown_provider(admin, frame.provider)
    try:
        provider, endpoint, key, operator = await database_sync_to_async(_preview)(frame, admin)
        models = await asyncio.to_thread(llm_config.fetch_models, provider, endpoint, key, operator=operator)
    except EndpointRefused as refused:
        return _refused(admin, refused)
    status = await database_sync_to_async(_imagegen_status)(admin.room_id)
    return frames.admin_reply("admin_models", provider=provider, models=models, imagegen=status)


def _skills(admin: Admin, locale: str | None) -> dict:
    chosen = locale if locale in ("en", "zh") else admin.locale
    return frames.admin_reply("admin_skills", skills=skill_catalog.listing(admin.room_id, chosen))


def _list_skills(frame: inbound.AdminListSkills, admin: Admin) -> dict:
    return _skills(admin, frame.locale)


def _enable_skill(frame: inbound.AdminEnableSkill, admin: Admin) -> dict:
    try:
        skill_catalog.set_enabled(admin.room_id, frame.id, frame.on)
    except KeyError:
        return admin.error("not_found", "no_skill", id=frame.id)
    return _skills(admin, frame.locale)


HANDLERS: dict[type, Callable[..., dict]] = {
    inbound.AdminListSkills: _list_skills,
    inbound.AdminEnableSkill: _enable_skill,
    inbound.AdminGetConfig: _config,
    inbound.AdminSetModel: _set_model,
    inbound.AdminSetImagegen: _set_imagegen,
    inbound.AdminListKeys: _list_keys,
    inbound.AdminMintKey: _mint_key,
    inbound.AdminUpdateKey: _update_key,
    inbound.AdminDeleteKey: _delete_key,
    inbound.AdminDeleteRoom: _delete_room,
    inbound.AdminImportRoom: _import_room,
    inbound.AdminDeleteRoomData: _delete_room_data,
    inbound.AdminResetRoom: _reset_room,
    inbound.AdminListRules: _list_rules,
}


def _generated(kind: str, result: forge.Generated) -> dict:
    return frames.admin_reply(
        "admin_generated",
        kind=kind,
        ok=result.ok,
        id=result.id if result.ok else "",
        name=result.name if result.ok else "",
        error=result.error,
        detail=result.detail,
    )


async def generate(frame: inbound.AdminGenerate, admin: Admin) -> dict:
    """`admin_generated`: the model drafts, the real validators check, only a valid
    document is installed. The model is asked outside the database thread."""
    if not frame.description.strip():
        return _generated(frame.kind, forge.Generated(False, error="describe what to generate"))
    config = await database_sync_to_async(llm_config.resolve)(admin.room_id)
    if not config.usable:
        return _generated(
            frame.kind,
            forge.Generated(
                False,
                error="no model is connected: the offline sample Keeper cannot write documents; "
                "connect one with admin_set_model or .model",
            ),
        )
    import openai  # loaded with the first model call (it is slow to import)

    try:
        text = await asyncio.to_thread(forge.draft, config, frame.kind, frame.description)
    except (openai.OpenAIError, EndpointRefused, grants.SignedOut) as exc:
        refused = refusal_in(exc)
        why = refused.message(admin.locale) if refused else exc.__class__.__name__
        return _generated(frame.kind, forge.Generated(False, error=f"the model did not answer ({why})"))
    result = await database_sync_to_async(forge.install)(frame.kind, text, admin.room_id)
    return _generated(frame.kind, result)


# Requests that wait on the network (a model endpoint): answered on the event loop,
# so no database thread is held while they wait.
SLOW_HANDLERS: dict[type, Callable[..., Awaitable[dict]]] = {
    inbound.AdminListModels: list_models,
    inbound.AdminGenerate: generate,
    inbound.AdminExportRoom: export_room,  # copies the room's blobs: minutes for a big room
}
# Changes to the room's model: every keeper of the room is shown the room's config after.
MODEL_SETTING = (inbound.AdminSetModel, inbound.AdminSetImagegen)
# Operations that replace the room's story: they wait for the room's turn.
TURN_TAKING = (inbound.AdminImportRoom, inbound.AdminDeleteRoomData, inbound.AdminResetRoom)


def answer(frame: inbound.Inbound, admin: Admin) -> dict:
    """The reply to one admin frame. Runs in a worker thread (it reads and writes rows);
    a change that replaces the room's story tells the members by itself."""
    if not admin.is_keeper:
        return admin.error("forbidden")
    handler = HANDLERS.get(type(frame))
    if handler is None:
        return admin.error("op_failed", "not_yet", what=frame.type)
    try:
        return handler(frame, admin)
    except backups.BackupError as exc:
        return admin.error(exc.code, "backup_failed", detail=str(exc))
    except OSError as exc:
        return admin.error("op_failed", "backup_failed", detail=exc.strerror or str(exc))
