"""A newcomer's first minutes at the browser table, in Chromium at desktop and phone
width (docs/decisions.md, "The browser table"): a wrong key leaves only the join screen
and its error; `.help` keeps its line breaks; a reload keeps the seat (from the tab's
sessionStorage, never the address or a cookie) until "Leave"; twelve quick sends give
one notice and the refused line back in the box; the box takes what the server takes,
with a counter near the limit; a long word wraps; who is at the table, and who comes
and goes; names read as written and never as markup, right to left isolated; the AI
narrator is not the keeper; a shared picture shows in the story; at a phone's width
the story fills the screen and the sheet is a drawer; deleting a key asks first, and
its player reads that it was revoked (not a retry's "not valid"); a
keeper with no model is offered the sample adventure on a card, which still starts it
after a first line; and all of it reads in Chinese for a Chinese newcomer."""

from __future__ import annotations

import pytest

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.fake_llm import png
from loreweaver.testing.servers import dedicated_server

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS

# Rate limits on, as a hosted table has them: five lines at once, one more every 2 s.
limited = dedicated_server(TRPG_RATE__REFILL_SECONDS="2")


@pytest.fixture(
    params=[{"width": 1280, "height": 860}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def page(request, browser):
    context = browser.new_context(viewport=request.param)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    yield page
    context.close()


def _join(page, server, key: str) -> None:
    """Open the table with an invite link's key and wait until seated."""
    page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}")
    page.locator("#table-screen").wait_for(state="visible")


def _shoot(page, screen: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(page, SCREENS / f"first-minutes-{screen}-{page.viewport_size['width']}.png")


def test_a_wrong_key_leaves_only_the_join_screen_and_its_error(limited, page):
    page.goto(limited.ws_url.replace("ws://", "http://"))
    page.fill("#join-key", "not-a-key-at-all")
    page.click("#join-form button[type=submit]")
    page.locator("#join-error").filter(has_text="not valid").wait_for()
    assert not page.locator("#table-screen").is_visible() and not page.locator("#say").is_visible()
    assert "Connecting" not in page.inner_text("body")
    _shoot(page, "wrong-key")


def test_help_reads_as_a_list_and_a_reload_keeps_the_seat_until_leaving(limited, page, room):
    key = limited.env.mint(room, "Tess")
    _join(page, limited, key)
    page.fill("#say", ".help")
    page.press("#say", "Enter")
    help_line = page.locator("#story li.system").filter(has_text="Commands:").last
    help_line.wait_for()
    assert help_line.inner_text().count("\n") > 10, "one command a line, not one paragraph"
    _shoot(page, "help")

    page.reload()
    page.locator("#table-screen").wait_for(state="visible")
    assert key not in page.url and key not in page.evaluate("document.cookie")
    assert page.inner_text("#room-name").endswith("Tess")

    page.click("#leave")
    page.click("#leave-go")  # Leave asks first
    page.locator("#join-screen").wait_for(state="visible")
    page.reload()
    page.locator("#join-screen").wait_for(state="visible")
    assert not page.locator("#table-screen").is_visible(), "left: a reload asks for a key again"


def test_a_flood_gives_one_notice_and_keeps_the_refused_line(limited, page, room):
    _join(page, limited, limited.env.mint(room, "Flo"))
    page.evaluate(  # twelve lines sent as fast as a hand on Enter can, well inside a second
        """() => { for (let n = 0; n < 12; n++) {
            document.getElementById("say").value = `.r 1d${n + 2}`;
            document.getElementById("say-form").requestSubmit();
        } }"""
    )
    notice = page.locator("#story li.system.warn")
    notice.filter(has_text="lines refused").wait_for()
    assert page.input_value("#say").startswith(".r 1d"), "the refused line is back in the box"
    _shoot(page, "flood")
    # Every one of the twelve is answered: a roll, or a refusal the notice counts.
    page.wait_for_function(
        r"""() => {
            const rolled = document.querySelectorAll("#story li.dice-line").length;
            const notice = document.querySelector("#story li.system.warn")?.textContent ?? "";
            const counted = /\((\d+)/.exec(notice);
            return rolled + (counted ? Number(counted[1]) : 0) === 12;
        }"""
    )
    assert notice.count() == 1, page.inner_text("#story")


def test_the_box_takes_what_the_server_takes_and_a_long_word_wraps(limited, page, room):
    _join(page, limited, limited.env.mint(room, "Lou"))
    page.fill("#say", "x" * 5000)
    assert len(page.input_value("#say")) == 4000, "the server takes 4,000 characters"
    assert "4000 of 4000" in page.inner_text("#say-count")
    page.fill("#say", "word" * 200)  # one word, 800 characters
    page.press("#say", "Enter")
    page.locator("#story li.player").last.wait_for()
    story = page.locator("#story")
    assert story.evaluate("node => node.scrollWidth <= node.clientWidth"), "nothing runs out of the story"
    assert not page.locator("#say-count").is_visible()
    _shoot(page, "long-word")


def test_names_words_and_markdown_read_as_written(limited, page, room):
    """The join form asks for no name the key does not already carry; the AI narrator
    is not confused with a human keeper named Keeper; a yes-or-no variable reads as a
    word, not `true`; `code` inside *emphasis* is code."""
    page.goto(limited.ws_url.replace("ws://", "http://"))
    assert page.locator("#join-name").count() == 0, "the key names its holder"
    page.goto("about:blank")  # a new load, not a change of fragment
    # A keeper named as `make serve` names the first one.
    page.goto(
        f"{limited.ws_url.replace('ws://', 'http://')}#key={limited.env.mint(room, 'Keeper', 'keeper')}"
    )
    page.locator("#table-screen").wait_for(state="visible")
    page.fill("#say", ".panels enable harbour-clues")
    page.press("#say", "Enter")
    ledger = page.locator("#variables li").filter(has_text="The harbourmaster's ledger")
    ledger.wait_for(state="attached")  # the sidebar is a drawer at a phone's width
    assert ledger.inner_text() == "The harbourmaster's ledger: yes"
    page.fill("#say", ".lore add The Lamp | harbour | *Its `wick` is dry.*")
    page.press("#say", "Enter")
    page.locator("#story li.system").filter(has_text="Lore The Lamp saved.").wait_for()
    page.fill("#say", "I look around the harbour.")
    page.press("#say", "Enter")
    # The offline Keeper recalls the lore in its narration; its notice is a notice.
    page.locator("#story li.kp em code").filter(has_text="wick").wait_for()
    page.locator("#story li.system").filter(has_text="No model is connected").wait_for()
    assert page.locator("#story li.player .who").last.inner_text() == "Keeper"
    assert page.locator("#story li.kp .who").first.inner_text() == "Offline Keeper (no model)", (
        "the narrator is not the keeper, nor an AI with no model connected"
    )
    _shoot(page, "words")


def test_everyone_sees_who_is_at_the_table_as_whom_and_who_comes_and_goes(limited, browser, room):
    base = limited.ws_url.replace("ws://", "http://")
    kay = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    kay.set_default_timeout(TIMEOUT)
    kay.goto(f"{base}#key={limited.env.mint(room, 'Kay', 'keeper')}")
    kay.locator("#online li").filter(has_text="Kay").wait_for()
    pip = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    pip.set_default_timeout(TIMEOUT)
    pip.goto(f"{base}#key={limited.env.mint(room, 'Pip_the_*quick*')}")
    kay.locator("#story li.presence").filter(has_text="Pip_the_*quick* joined the table.").wait_for()
    assert sorted(kay.locator("#online li bdi").all_inner_texts()) == ["Kay", "Pip_the_*quick*"]
    assert pip.locator("#story li.presence").count() == 0, "the roll call at a join is not news"
    pip.fill("#say", ".coc Mara")
    pip.press("#say", "Enter")
    pips_entry = kay.locator("#online li").filter(has_text="Pip_the_*quick*")
    pips_entry.locator(".who").filter(has_text="Mara").wait_for()
    assert pips_entry.locator(".who").inner_text() == "player · Mara · WebSocket"
    assert (
        kay.locator("#online li").filter(has_text="Kay").locator(".who").inner_text() == "keeper · WebSocket"
    )
    _shoot(kay, "online")
    pip.click("#leave")
    pip.click("#leave-go")
    kay.locator("#story li.presence").filter(has_text="Pip_the_*quick* left the table.").wait_for()
    assert kay.locator("#online li bdi").all_inner_texts() == ["Kay"]
    pip.context.close()
    kay.context.close()


def test_at_a_phones_width_the_story_fills_the_screen_and_the_sheet_is_a_drawer(limited, browser, room):
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.set_default_timeout(TIMEOUT)
    _join(page, limited, limited.env.mint(room, "Ash"))
    column = page.locator(".story-column").bounding_box()
    assert column["y"] + column["height"] >= 844 - 2, "the story and the box reach the bottom"
    assert column["height"] > 844 * 0.75
    page.click("#toggle-side")
    page.locator("#side").wait_for(state="visible")
    assert not page.locator("#story").is_visible(), "the drawer takes the story's place"
    side = page.locator("#side").bounding_box()
    assert side["height"] > 844 * 0.75
    _shoot(page, "drawer")
    page.click("#toggle-side")
    page.locator("#story").wait_for(state="visible")
    page.context.close()


def test_a_shared_picture_shows_in_the_story_and_opens_full_size(limited, page, room, tmp_path):
    _join(page, limited, limited.env.mint(room, "Pat"))
    picture = tmp_path / "harbour map.png"
    picture.write_bytes(png(40, 30, (40, 90, 160)))
    page.set_input_files("#upload", str(picture))
    line = page.locator("#story li.picture").filter(has_text="harbour map.png")
    line.locator("img[src^='blob:']").wait_for()
    assert line.locator("a").get_attribute("href").startswith("blob:")
    size = line.locator("img").evaluate("image => [image.naturalWidth, image.naturalHeight]")
    assert size == [40, 30]
    _shoot(page, "picture")


def test_a_name_written_right_to_left_is_isolated_from_the_line(limited, page, room):
    _join(page, limited, limited.env.mint(room, "שרה"))
    page.fill("#say", ".r 1d6")
    page.press("#say", "Enter")
    for who in (page.locator("#story li.player .who").last, page.locator("#story .dice .who").last):
        who.wait_for()
        assert who.evaluate("node => [node.tagName, node.textContent]") == ["BDI", "שרה"]
    assert page.locator("#online bdi").first.inner_text() == "שרה"


def test_the_keeper_is_asked_before_a_key_is_deleted_and_its_player_is_told_why(limited, browser, room):
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.set_default_timeout(TIMEOUT)
    _join(page, limited, limited.env.mint(room, "Kay", "keeper"))
    page.click("#open-keeper")
    dialog = page.locator("#keeper-screens")
    dialog.locator("input[id^=k-]").first.fill("Temp")
    dialog.locator("button[type=submit]", has_text="Mint").click()
    temp = dialog.locator(".keys li").filter(has=page.locator("input[value=Temp]"))
    temp.first.wait_for()
    player = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    player.set_default_timeout(TIMEOUT)
    player.goto(page.input_value("#invite-link"))  # the player opens the invite link
    player.locator("#table-screen").wait_for(state="visible")
    asked = []
    page.once("dialog", lambda question: (asked.append(question.message), question.dismiss()))
    temp.first.locator("button", has_text="Delete").click()
    assert asked and "Temp" in asked[0], "the keeper is asked"
    assert temp.count() == 1, "dismissed: the key stays"
    page.once("dialog", lambda question: question.accept())
    temp.first.locator("button", has_text="Delete").click()
    temp.first.wait_for(state="detached")
    player.locator("#join-screen").wait_for(state="visible")
    player.locator("#join-error").filter(has_text="revoked").wait_for()
    assert "not valid" not in player.inner_text("#join-error"), "the reason stays, not a retry's error"
    assert player.locator("#table-screen").is_hidden()
    assert player.evaluate("sessionStorage.getItem('loreweaver-seat')") is None, "the seat is forgotten"
    _shoot(player, "revoked")
    player.context.close()
    page.context.close()


def test_a_keeper_starts_the_sample_adventure_from_its_card_after_a_first_line(limited, page, room):
    _join(page, limited, limited.env.mint(room, "Kay", "keeper"))
    card = page.locator("#sample-card")
    card.wait_for()
    assert "offline Keeper" in card.inner_text(), "the card says who will narrate"
    _shoot(page, "sample-card")
    page.fill("#say", "Hello, is anyone here?")
    page.press("#say", "Enter")
    page.locator(".story li.kp").first.wait_for()
    page.click("#sample-card button")
    page.locator(".story .npc").filter(has_text="hold an oar").wait_for()
    assert page.locator("#sample-card").count() == 0
    page.locator(".story li.kp").filter(has_text="What do you do?").wait_for()
    _shoot(page, "sample-started")


def test_a_player_is_not_offered_the_sample_adventure(limited, page, room):
    _join(page, limited, limited.env.mint(room, "Pat"))
    assert page.locator("#sample-card").count() == 0, "the card is drawn with the welcome, for keepers"


def test_the_first_minutes_read_in_chinese(limited, page, room):
    base = limited.ws_url.replace("ws://", "http://")
    page.goto(f"{base}#lang=zh")
    assert page.inner_text("#join-form button[type=submit]") == "加入桌面"
    _shoot(page, "zh-join")
    page.goto("about:blank")  # a new fragment alone would not load the page again
    page.goto(f"{base}#lang=zh&key={limited.env.mint(room, '凯', 'keeper')}")
    page.locator("#table-screen").wait_for(state="visible")
    page.locator("#sample-card", has_text="离线守秘人").wait_for()
    page.fill("#say", ".help")
    page.press("#say", "Enter")
    page.locator("#story li.system").filter(has_text="指令：").last.wait_for()
    _shoot(page, "zh-help")

    friend = page.context.browser.new_page()
    friend.goto(f"{base}#lang=zh&key={limited.env.mint(room, '帕特')}")
    page.locator("#online li", has_text="帕特").wait_for(state="attached")
    page.locator("#story li", has_text="帕特 来到了桌边。").wait_for()
    friend.close()
    page.locator("#story li", has_text="帕特 离开了桌子。").wait_for()

    page.evaluate(
        """() => { for (let n = 0; n < 12; n++) {
            document.getElementById("say").value = `.r 1d${n + 2}`;
            document.getElementById("say-form").requestSubmit();
        } }"""
    )
    page.locator("#story li.system.warn").filter(has_text="发送太快了").wait_for()
    page.fill("#say", "长" * 3900)
    assert "已输入 3900 / 4000 字" in page.inner_text("#say-count")
    _shoot(page, "zh-flood-and-a-long-paste")
