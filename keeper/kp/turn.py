"""One AI Keeper turn (`run_kp_turn`): brief the model, stream its narration, run its
tools round by round, and close every draft it opened.

The turn speaks to the table through a `TurnSink` that the room layer implements, so
the game never touches sockets. Order on the wire is the order things happened: a
draft streams as `narrative_delta`; when the model turns to its tools the draft is
closed with the text so far (or discarded if it was only whitespace), the tools' dice
and NPC lines go out as they run, and the next round opens a new draft. A failure
closes the open draft with what streamed, tells the table, and ends the turn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Protocol

from channels.db import database_sync_to_async
from django.conf import settings
from django.db.models import F

from base import frames
from base.i18n import _, say
from keeper.chronicle import estimate_tokens
from keeper.kp import memory, prompt, stage, tools
from keeper.kp.censor import OutputFilter
from keeper.llm import config as llm_config
from keeper.llm import images
from keeper.llm.client import ChatModel, Notice, ProviderError, TextDelta, ToolCall, ToolCalls, Usage
from keeper.models import Story
from keeper.turn_hooks import TurnHooks
from media_store.services import MediaError, Uploader

log = logging.getLogger(__name__)

# Tokens of the window kept free for the Keeper's reply.
REPLY_TOKENS = 1024
# Who the room's media index names as the uploader of what the Keeper draws.
KEEPER_UPLOADER = "keeper"


class TurnSink(Protocol):
    """How a Keeper turn reaches the table (implemented by `loreweaver.wire.turns`)."""

    async def busy(self, activity: str | None = None, round_number: int | None = None) -> None: ...
    async def delta(self, draft_id: str, text: str) -> None: ...
    async def close_draft(self, draft_id: str, text: str) -> None: ...
    async def events(self, events: list[tuple[dict, bool]]) -> None: ...
    async def keeper_notice(self, text: str) -> None: ...
    async def notice(self, text: str) -> None: ...
    async def keeper_warning(self, text: str) -> None: ...
    async def warning(self, text: str) -> None: ...
    async def media(self, item_id: int) -> None: ...
    async def present(self, frame: dict) -> None: ...
    def new_id(self) -> str: ...


@dataclass(frozen=True)
class KpTurn:
    """The utterance a Keeper turn answers."""

    room_id: int
    member_id: str
    name: str
    locale: str  # the room's language, for the model and the table


class _Draft:
    """The narration bubble being streamed, if one is open."""

    def __init__(self, sink: TurnSink) -> None:
        self.sink = sink
        self.id: str | None = None
        self.filter = OutputFilter()
        self.raw = ""
        self.pending = ""  # held-back text `held` released, not yet streamed

    async def feed(self, text: str) -> None:
        self.raw += text
        shown = self.filter.feed(text)
        if shown:
            if self.id is None:
                self.id = self.sink.new_id()
            await self.sink.delta(self.id, shown)

    def held(self) -> str:
        """The bubble's text as it will close (what a filter held back included)."""
        tail = self.filter.finish()
        if tail:
            self.pending += tail
        return (self.filter.shown).strip()

    async def close(self, final: str | None = None) -> str:
        """Close the bubble with its text so far, or with `final` (the reply as the
        room's hooks left it: the closing frame replaces what streamed); a bubble that
        showed only whitespace closes empty, which discards it. Returns the raw text
        the model wrote."""
        tail = self.pending + self.filter.finish()  # text a filter held back belongs to the bubble
        self.pending = ""
        if tail:
            if self.id is None:
                self.id = self.sink.new_id()
            await self.sink.delta(self.id, tail)
        text = self.filter.shown.strip()
        if final is not None and final.strip() != text:
            line = OutputFilter()  # what a hook wrote passes the table's filter too
            text = (line.feed(final) + line.finish()).strip()
            if self.id is None and text:
                self.id = self.sink.new_id()
        if self.id is not None:
            await self.sink.close_draft(self.id, text)
        raw, self.raw = self.raw, ""
        self.id, self.filter = None, OutputFilter()
        return raw


async def _voice_npc(model: ChatModel, turn: KpTurn, arguments: dict) -> tools.ToolOutcome:
    direction = str(arguments.get("direction") or "").strip()[:2000]
    name, messages = await database_sync_to_async(prompt.npc_messages)(
        turn.room_id, str(arguments.get("npc") or ""), direction, turn.locale
    )
    line = OutputFilter()
    text = (line.feed(await model.complete(messages)) + line.finish()).strip()
    if not text:
        return tools.ToolOutcome(f"{name} says nothing")
    frame = frames.narrative("", "npc", text, text_format="markdown", name=name)  # its id comes from the sink
    return tools.ToolOutcome(f"{name} said: {text}", [(frame, False)])


async def _draw(turn: KpTurn, sink: TurnSink, arguments: dict) -> tools.ToolOutcome:
    """`draw_image`: the image endpoint draws it, it becomes the room's media, and the
    table sees it arrive like an upload."""
    config = await database_sync_to_async(llm_config.imagegen)(turn.room_id)
    description = str(arguments.get("description") or "").strip()[:4000]
    if not config.configured or not description:
        return tools.ToolOutcome(
            "no image was drawn: " + ("describe it" if config.configured else "no image endpoint")
        )
    title = str(arguments.get("title") or "").strip()[:100] or description[:60]
    try:
        drawn = await asyncio.to_thread(images.draw, config, description)
        keeper = Uploader(turn.room_id, KEEPER_UPLOADER, tools.KEEPER_NAME)
        item = await database_sync_to_async(images.store_drawing)(keeper, title, drawn)
    except (images.ImageError, MediaError) as failed:
        log.warning("room=%s the Keeper's image was not drawn: %s", turn.room_id, failed)
        return tools.ToolOutcome(f"the image could not be drawn ({failed})")
    await sink.media(item.id)
    return tools.ToolOutcome(f"drew {title!r}; the table sees it now")


async def _run_tool(
    model: ChatModel, turn: KpTurn, sink: TurnSink, call: ToolCall, hooks: TurnHooks | None = None
) -> str:
    arguments = call.parsed_arguments()
    tool = tools.TOOLS.get(call.name)
    misfit = tool.misfit(arguments) if tool is not None else None
    if misfit is not None:
        # The model reads what was wrong and calls again in its next round; the table
        # sees nothing of it (a wrong call is the model's slip, not the story's).
        log.warning("room=%s a Keeper tool call did not fit its schema: %s", turn.room_id, misfit)
        return misfit
    if hooks is not None and (refused := await hooks.tool_use(call.name, arguments)) is not None:
        return refused  # the tool does not run; the model reads why
    if call.name == "speak_as_npc":
        outcome = await _voice_npc(model, turn, arguments)
        for frame, _ in outcome.events:
            frame["id"] = sink.new_id()
    elif call.name == "draw_image":
        outcome = await _draw(turn, sink, arguments)
    else:
        context = tools.ToolContext(turn.room_id, turn.member_id, turn.name, turn.locale)
        outcome = await database_sync_to_async(tools.run)(call.name, arguments, context)
        for frame, _ in outcome.events:
            if frame.get("type") == "narrative" and not frame.get("id"):
                frame["id"] = sink.new_id()  # a line of the story a tool told (an item given)
    if outcome.events:
        await sink.events(outcome.events)
        if hooks is not None:
            hooks.rolls += [
                stage.hook_roll(frame, call.name) for frame, hidden in outcome.events if not hidden
            ]
    if hooks is not None:
        hooks.happened(outcome.happened)
    if outcome.keeper_notice:
        await sink.keeper_notice(outcome.keeper_notice)
    for frame in outcome.ui:
        await sink.present(frame)
    return outcome.result


def _record_usage(room_id: int, last: Usage, total: Usage, window: int) -> None:
    Story.of(room_id)
    Story.objects.filter(room_id=room_id).update(
        ai_turns=F("ai_turns") + 1,
        context_tokens=last.input_tokens + last.output_tokens,
        context_window=window,
        input_tokens=F("input_tokens") + total.input_tokens,
        output_tokens=F("output_tokens") + total.output_tokens,
        cache_hit_tokens=F("cache_hit_tokens") + total.cache_hit_tokens,
        cache_miss_tokens=F("cache_miss_tokens") + total.cache_miss_tokens,
    )


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cache_hit_tokens + b.cache_hit_tokens,
        a.cache_miss_tokens + b.cache_miss_tokens,
    )


# What a keeper can do about a provider's answer, by HTTP status.
_FIXES = {
    401: _("The key was refused: check the API key."),
    403: _("The key may not use this model: check the key's permissions and the model name."),
    404: _("The address or the model name is wrong: check both."),
    429: _("The provider is limiting requests or the account is out of credit: wait, or check the account."),
}

# The same, for a keeper's own subscription (keeper/llm/subscribed.py).
_SUBSCRIPTION_FIXES = {
    "signed_out": _(
        "The room's {p} sign-in has ended and it is now logged out: sign in again with .model login {p}."
    ),
    "quota": _("The {p} subscription has reached its usage limit: wait until it resets, or switch provider."),
}


def model_failure(failure: Exception, model: ChatModel, locale: str) -> str:
    """What a keeper reads when the model failed a turn: what failed, where, and how to
    fix it (never the key)."""
    config = getattr(model, "config", None)
    where = f"{config.chat_model} at {config.base_url}" if config is not None else "?"
    status = getattr(failure, "status", None)
    if isinstance(failure, TimeoutError):
        what = say(locale, _("no answer within {s} seconds"), s=settings.TRPG_LLM_TIMEOUT)
        fix = say(locale, _("Check that the address is right and the provider is up."))
    else:
        what = str(failure) or failure.__class__.__name__
        kind = getattr(failure, "kind", "")
        if kind in _SUBSCRIPTION_FIXES and config is not None:
            fix = say(locale, _SUBSCRIPTION_FIXES[kind], p=config.subscription or config.provider)
        elif status in _FIXES:
            fix = say(locale, _FIXES[status])
        elif status is not None and status >= 500:
            fix = say(locale, _("The provider failed on its side: try again later, or switch provider."))
        else:
            fix = say(locale, _("The address could not be reached: check it, and the network."))
    return say(
        locale,
        _(
            "The model did not answer ({what}; {where}). {fix} Change it on the model page (Keeper "
            "screens, Model) or with .model; .model reset goes back to the server's model."
        ),
        what=what,
        where=where,
        fix=fix,
    )


async def run_kp_turn(
    turn: KpTurn, sink: TurnSink, model: ChatModel, context_window: int = 0, hooks: TurnHooks | None = None
) -> None:
    """Play the Keeper's answer to the newest line of the room, with the room's event
    `hooks` fired where their events happen (keeper/turn_hooks.py). Never raises for a
    model failure: the table is told, and the caller sends `idle`."""
    await sink.busy()
    injected = await hooks.turn_start() if hooks is not None else []
    image_config = await database_sync_to_async(llm_config.imagegen)(turn.room_id)
    offered = tools.specs(images=image_config.configured)
    # The tools' schemas and the reply take their share of the window too.
    reserve = estimate_tokens(json.dumps(offered)) + REPLY_TOKENS
    vector = await memory.lore_vector(turn.room_id, model)
    brief = await database_sync_to_async(prompt.keeper_brief)(
        turn.room_id, turn.locale, context_window, reserve, vector
    )
    messages = brief.messages
    if injected:  # the hooks' sections, just before the line this turn answers
        # A user message named as what it is: a system message in mid-conversation is
        # not taken by every provider.
        section = "[FOR THIS TURN, from the room's hooks; not a player's words]\n" + "\n\n".join(injected)
        messages.insert(max(1, len(messages) - 1), {"role": "user", "content": section})
    draft = _Draft(sink)
    total, last = Usage(), None
    round_number = 0
    try:
        while True:
            calls: list[ToolCall] = []
            async with asyncio.timeout(settings.TRPG_LLM_TIMEOUT):
                async for event in model.stream(messages, offered):
                    if isinstance(event, TextDelta):
                        await draft.feed(event.text)
                    elif isinstance(event, ToolCalls):
                        calls = event.calls
                    elif isinstance(event, Usage):
                        last, total = event, _add(total, event)
                    elif isinstance(event, Notice):
                        await sink.notice(event.text)
            if not calls:
                break
            if round_number >= settings.TRPG_LLM_MAX_ROUNDS:
                log.warning("room=%s keeper turn stopped after %s tool rounds", turn.room_id, round_number)
                break
            round_number += 1
            said = await draft.close()
            messages.append(
                {
                    "role": "assistant",
                    "content": said or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        }
                        for c in calls
                    ],
                }
            )
            await sink.busy(tools.activity_of(calls[0].name), round_number)
            for call in calls:
                result = await _run_tool(model, turn, sink, call, hooks)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        # The reply phases run before the reply's closing frame, which carries the
        # reply as they left it and replaces what streamed.
        await draft.close(await hooks.after_reply(draft.held()) if hooks is not None else None)
        if last is not None:
            await database_sync_to_async(_record_usage)(turn.room_id, last, total, context_window)
    except (ProviderError, TimeoutError, json.JSONDecodeError) as failure:
        log.warning("room=%s keeper turn failed: %s", turn.room_id, failure)
        await draft.close()
        refusal = getattr(failure, "refusal", None)
        if refusal is not None:
            # The room's endpoint was refused as it connected: say which rule, as
            # trying again will not help.
            await sink.warning(refusal.message(turn.locale))
        else:
            await sink.warning(
                say(
                    turn.locale,
                    _(
                        "The Keeper is unavailable: the model did not answer. The room's keepers "
                        "have been told what failed; say it again once it is fixed."
                    ),
                )
            )
            await sink.keeper_warning(model_failure(failure, model, turn.locale))
    finally:
        if draft.id is not None:  # cancelled mid-stream: the bubble still gets its closing frame
            await asyncio.shield(draft.close())
    if brief.fold_through is not None:
        memory.start_fold(turn.room_id, model, brief.fold_through, context_window, turn.locale)
