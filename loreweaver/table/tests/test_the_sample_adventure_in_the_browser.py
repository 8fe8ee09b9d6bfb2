"""The sample adventure played to an end in Chromium by a keeper and two players, as
newcomers would (docs/decisions.md, "The offline Keeper and the sample adventure"): the
keeper says a first line, then starts it from the welcome card; the three play one path
in English (keeper at a desktop, a player at a phone's width) and the other in Chinese,
checks fail and are tried again, and the story ends on its title card. Screenshots of
each seat go to `build/screens/`."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap
from loreweaver.testing.servers import dedicated_server

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
TIMEOUT = 30_000
# What the Keeper answers with: narration, or an NPC's line.
ANSWERS = "#story > li.kp:not(.draft), #story > li.npc"
TRIES = 16  # a failed check is tried again, as players would (0.55 ** 16 < 1e-4)

pytestmark = BROWSER_TESTS

offline_server = dedicated_server(TRPG_OFFLINE__STREAM_PAUSE="0")


class Seat:
    """One person at the table, in a browser context of their own."""

    def __init__(self, browser, server, key: str, viewport: dict, language: str, name: str) -> None:
        self.name, self.language = name, language
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(server.ws_url.replace("ws://", "http://") + f"#lang={language}&key={key}")
        self.page.locator("#table-screen").wait_for(state="visible")

    def say(self, text: str) -> None:
        self.page.fill("#say", text)
        self.page.press("#say", "Enter")

    def shoot(self, moment: str) -> None:
        SCREENS.mkdir(parents=True, exist_ok=True)
        width = self.page.viewport_size["width"]
        snap(self.page, SCREENS / f"sample-{self.language}-{moment}-{self.name}-{width}.png")


class Table:
    """The keeper's page watches every turn; the clues show in its sidebar."""

    def __init__(self, keeper: Seat, *players: Seat) -> None:
        self.keeper, self.seats = keeper, {seat.name: seat for seat in (keeper, *players)}
        self.beats = 0

    def turn(self, who: str, line: str) -> None:
        """`who` says `line`; back once the Keeper's answer is over on the keeper's page."""
        page = self.keeper.page
        answers = page.locator(ANSWERS).count()
        self.seats[who].say(line)
        page.wait_for_function(f"n => document.querySelectorAll('{ANSWERS}').length > n", arg=answers)
        page.locator("#busy").wait_for(state="hidden")
        self.beats += 1

    def until(self, who: str, line: str, clue: str) -> None:
        """Say `line` until the keeper's sidebar shows the clue found."""
        for _ in range(TRIES):
            self.turn(who, line)
            if self.keeper.page.locator("#variables li", has_text=clue).count():
                return
        raise AssertionError(f"{clue!r} never shown after {TRIES} tries of {line!r}")

    def ending(self, who: str, line: str, title: str) -> None:
        for _ in range(TRIES):
            self.turn(who, line)
            if self.keeper.page.locator(".story .title-card", has_text=title).count():
                return
        raise AssertionError(f"no ending after {TRIES} tries of {line!r}")

    def close(self) -> None:
        for seat in self.seats.values():
            assert seat.errors == [], f"{seat.name}: {seat.errors}"
            seat.context.close()


def _start(browser, server, room: str, language: str, first_line: str) -> Table:
    env = server.env
    kay = Seat(
        browser,
        server,
        env.mint(room, "Kay", "keeper"),
        DESKTOP if language == "en" else PHONE,
        language,
        "kay",
    )
    pat = Seat(
        browser, server, env.mint(room, "Pat"), PHONE if language == "en" else DESKTOP, language, "pat"
    )
    bob = Seat(browser, server, env.mint(room, "Bob"), DESKTOP, language, "bob")
    table = Table(kay, pat, bob)
    kay.page.locator("#sample-card").wait_for()
    kay.say(first_line)
    kay.page.locator("#story > li", has_text=first_line).wait_for()
    kay.page.locator("#busy").wait_for(state="hidden")
    kay.shoot("card-after-a-first-line")
    answers = kay.page.locator("#story > li.kp:not(.draft)").count()
    kay.page.click("#sample-card button")
    kay.page.wait_for_function("n => document.querySelectorAll('#story > li.npc').length > 0", arg=answers)
    kay.page.locator("#busy").wait_for(state="hidden")
    for seat in table.seats.values():
        seat.page.locator(".story .npc", has_text="Ruth Cobb").wait_for()
        seat.shoot("opening")
    return table


def test_three_newcomers_relight_the_lamp_in_english(browser, offline_server, room):
    table = _start(browser, offline_server, room, "en", "Hello, everyone!")
    table.turn("pat", "Ruth, what is wrong with Silas?")
    table.turn("bob", "Ruth, tell us about the old chapel and its bell.")
    table.turn("bob", "We row out to the lighthouse.")
    table.keeper.page.locator("#scene", has_text="The foot of the lighthouse").wait_for(state="attached")
    table.turn("kay", "We go inside and call out.")
    table.turn("pat", "Silas, give us the mantle for the lamp.")
    table.turn("kay", "I watch his face as he speaks.")
    table.until("bob", "I search under the stairs.", "Found Silas's log: yes")
    table.until("kay", "I read the logbook.", "Read the log: yes")
    table.seats["pat"].page.locator(".story .letter", has_text="bell rings closer").wait_for()
    table.seats["pat"].shoot("the-log")
    table.turn("pat", "Silas, please give us the mantle for the lamp.")
    table.turn("bob", "We climb up to the lamp room.")
    table.turn("pat", "I look out to sea through the window.")
    table.ending("kay", "I light the lamp.", "The Light Returns")
    assert table.beats >= 12, table.beats
    for seat in table.seats.values():
        seat.page.locator(".story .title-card", has_text="The Light Returns").wait_for()
        seat.shoot("ending")
    table.turn("pat", "I look around the lamp room.")
    last = table.keeper.page.locator("#story > li.kp").last.inner_text()
    assert "sample adventure" not in last, "after the end the offline Keeper answers"
    table.close()


def test_three_newcomers_silence_the_bell_in_chinese(browser, offline_server, room):
    table = _start(browser, offline_server, room, "zh", "大家好！")
    table.turn("bob", "露丝，塞拉斯怎么了？")
    table.turn("kay", "我们等一会儿。")
    table.turn("bob", "露丝，老礼拜堂和钟是怎么回事？")
    table.until("pat", "我在码头四处打听。", "听说了沉没的礼拜堂: 是")
    table.turn("bob", "我们划船去礁石。")
    table.until("pat", "我检查那扇门。", "发现门上的抓痕: 是")
    table.until("bob", "我拿起铁链。", "带着铁链: 是")
    table.until("kay", "我仔细聆听。", "听见礁石下的钟声: 是")
    table.turn("pat", "我们爬下去到岸边。")
    table.keeper.page.locator("#scene", has_text="沉没的礼拜堂").wait_for(state="attached")
    table.until("bob", "我搜查石拱里面。", "找到沉钟: 是")
    table.turn("pat", "露丝在这里吗？")
    table.ending("kay", "我用铁链把钟捆住，让它安静。", "钟声止息")
    assert table.beats >= 12, table.beats
    for seat in table.seats.values():
        seat.page.locator(".story .title-card", has_text="钟声止息").wait_for()
        seat.shoot("ending")
    table.close()
