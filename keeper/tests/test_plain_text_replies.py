"""Command replies are plain text (a `narrative` of `format: plain`): no markdown a
client would print literally, in either language; a roll reads `Ann rolls 1d20: 14`."""

from __future__ import annotations

import re

import pytest

from keeper.commands import Caller, dispatch
from rooms.services import room_get_or_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("seeded")]

MARKDOWN = re.compile(r"\*\*|`|__|~~|^#+ |\*\(", re.M)
LINES = [
    ".coc Ann",
    ".r 1d20",
    ".r",
    ".r 4d6kh3+2",
    ".r 3#1d6",
    ".r 1d20 adv",
    ".r 4d10>7",
    ".rh 1d6",
    ".ra 侦查50",
    ".rc spot_hidden",
    ".ra hard 侦查",
    ".sc 1/1d6",
    ".en 侦查",
    ".ri",
    ".ti",
    ".li",
    ".st",
    ".st finalize",
    ".genchar",
    ".module set The Bell | A bell rings. | It is a signal.",
    ".module",
    ".recap",
    ".npc add Silas | a keeper | rings it",
    ".npc",
    ".bot",
    ".reset all",
    ".jrrp",
    ".help",
    ".nosuchthing",
]


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_no_reply_carries_markdown(locale):
    caller = Caller(room_get_or_create(name=f"plain-{locale}").pk, "tui:aaaaaaaa", "Ann", True, locale)
    for line in LINES:
        reply = dispatch(line, caller)
        assert reply is not None and reply.text, line
        assert not MARKDOWN.search(reply.text), f"{line} answered {reply.text!r}"


def test_a_roll_reads_who_rolls_what_and_the_total():
    caller = Caller(room_get_or_create(name="plain-rolls").pk, "tui:aaaaaaaa", "Ann", False, "en")
    assert re.fullmatch(r"Ann rolls 1d20: \d{1,2}", dispatch(".r 1d20", caller).text)
    assert re.fullmatch(r"Ann rolls 2d6\+3: \d{1,2}", dispatch(".r 2d6+3", caller).text)
    pool = dispatch(".r 4d10>7", caller).text
    assert re.fullmatch(r"Ann rolls 4d10>7: \d successes, \d ones", pool), pool
