"""`.audio set` reads an unquoted value up to the next `field=` (docs/rules.md, "The
audio desk"): `title=Harbour bell license=CC BY 4.0` is a two-word title and a license
of three, as the keeper typed them; quoted values read as before; a mistyped field is
still refused, never taken as words of the value before it.

The lines are answered in-process by the game's dispatcher, as the wire's input handler
has them answered; the `audio_library_item` frames checked are the ones the room is sent."""

from __future__ import annotations

import os

from keeper.commands import dispatch
from media_store.tests.conftest import seat, stored

BELL = b"RIFF" + os.urandom(3000)


def _item(line: str, keeper) -> dict:
    """The `audio_library_item` the room is sent for `line`."""
    reply = dispatch(line, keeper)
    assert reply is not None and [frame["type"] for frame in reply.live] == ["audio_library_item"], (
        line,
        reply,
    )
    return reply.live[0]


def test_an_unquoted_title_with_spaces_is_the_whole_title(desk_room):
    keeper = seat(desk_room, "Kay", keeper=True)
    stored(desk_room, BELL, "audio/wav", "bell.wav")

    item = _item(".audio set bell.wav title=Harbour bell license=CC BY 4.0 tags=sea, bell", keeper)
    assert (item["title"], item["license"]) == ("Harbour bell", "CC BY 4.0"), item

    item = _item('.audio set bell.wav title="Gull Rock bell" "source=field recording, 1923"', keeper)
    assert item["title"] == "Gull Rock bell", item
    assert item["source"] == "field recording, 1923" and item["license"] == "CC BY 4.0", item


def test_a_mistyped_field_is_refused_and_never_read_as_words_of_the_value_before_it(desk_room):
    keeper = seat(desk_room, "Kay", keeper=True)
    before = stored(desk_room, BELL, "audio/wav", "bell.wav")

    refused = dispatch(".audio set bell.wav title=Harbour bell licence=CC0", keeper)
    assert refused.text.startswith("Unknown field licence"), refused.text
    assert refused.live == [], "the room is sent nothing"
    assert stored(desk_room, BELL, "audio/wav", "bell.wav") == before, "the track is as it was"
