"""The campaign's memory around a Keeper turn: folding its oldest turns into its
summary, after a turn and in the background, so no player waits for it
(`keeper/chronicle.py` decides when and what); and, with an embeddings model, the
vectors that let lore be chosen by meaning (`lore_vector`).

The model writes the summary from the table's side of the story only (it never sees a
keeper-only fact, so the summary `.recap` shows cannot hold one); the offline Keepers,
and a model that fails or takes too long, leave it to extraction. One fold per room
runs in a process at a time, and a fold another process saved first wins.
"""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from keeper import chronicle, lore
from keeper.kp.censor import OutputFilter
from keeper.kp.prompt import LANGUAGES
from keeper.llm.client import ChatModel, ProviderError

log = logging.getLogger(__name__)

FOLD_BRIEF = """You keep the chronicle of a tabletop role-playing campaign. Write one summary, \
in {language}, of the summary so far and the new events below: who the characters met (names), \
what they learned, were told, promised, found and carry, where they are and what is still open. \
Only facts from the text, oldest first, no commentary, plain text without markdown; at most \
{words} words."""

_folding: set[int] = set()
_running: set[asyncio.Task] = set()


def start_fold(room_id: int, model: ChatModel, through: int, window: int, locale: str) -> None:
    """Fold the room's story up to transcript line `through` into its summary, in the
    background (nothing happens when a fold of the room is already running here)."""
    if room_id in _folding:
        return
    _folding.add(room_id)
    window = window or settings.TRPG_LLM_CONTEXT_WINDOW
    task = asyncio.get_running_loop().create_task(_fold(room_id, model, through, window, locale))
    _running.add(task)
    task.add_done_callback(_running.discard)


async def _fold(room_id: int, model: ChatModel, through: int, window: int, locale: str) -> None:
    try:
        material = await database_sync_to_async(chronicle.fold_material)(room_id, through, window)
        if material is None:
            return
        text = await _summarize(model, material, locale)
        if await database_sync_to_async(chronicle.save_fold)(material, text):
            log.info("room=%s story folded through line %s", room_id, through)
    except Exception as failure:  # the next turn plans the fold again
        log.warning("room=%s the story could not be folded: %r", room_id, failure)
    finally:
        _folding.discard(room_id)


async def _summarize(model: ChatModel, material: chronicle.FoldMaterial, locale: str) -> str:
    if not getattr(model, "writes_summaries", True):
        return chronicle.extractive_summary(material)
    events = "\n".join(f"- {line}" for line in material.public)
    messages = [
        {
            "role": "system",
            "content": FOLD_BRIEF.format(
                language=LANGUAGES.get(locale, "English"), words=max(60, material.budget_tokens * 2 // 3)
            ),
        },
        {
            "role": "user",
            "content": f"SUMMARY SO FAR:\n{material.summary or '(none)'}\n\nNEW EVENTS:\n{events}",
        },
    ]
    try:
        async with asyncio.timeout(settings.TRPG_LLM_TIMEOUT):
            written = await model.complete(messages)
    except (ProviderError, TimeoutError) as failure:
        log.warning(
            "room=%s the model did not write the summary (%s): extracted instead", material.room_id, failure
        )
        return chronicle.extractive_summary(material)
    line = OutputFilter()
    # `.recap` shows the summary: plain text, whatever marks the model wrote.
    text = chronicle.plain_text(line.feed(written) + line.finish())
    if not text or chronicle.estimate_tokens(text) > material.budget_tokens * 2:
        return chronicle.extractive_summary(material)
    return text


async def lore_vector(room_id: int, model: ChatModel) -> list[float] | None:
    """The recent story's vector, for choosing lore by meaning, after giving a few of
    the room's entries that have none their own; None without an embeddings model,
    and when the provider fails (the turn goes on without)."""
    embedding_model = settings.TRPG_LLM_EMBEDDING_MODEL
    embed = getattr(model, "embed", None)
    if not embedding_model or embed is None:
        return None
    try:
        pending = await database_sync_to_async(lore.needing_vectors)(room_id, embedding_model)
        if pending:
            vectors = await embed([f"{entry.title}\n{entry.content}" for entry in pending])
            await database_sync_to_async(lore.keep_vectors)(pending, vectors, embedding_model)
        text = await database_sync_to_async(lore.recent_text)(room_id)
        return (await embed([text]))[0] if text.strip() else None
    except (ProviderError, TimeoutError) as failure:
        log.warning("room=%s no lore vectors this turn: %s", room_id, failure)
        return None
