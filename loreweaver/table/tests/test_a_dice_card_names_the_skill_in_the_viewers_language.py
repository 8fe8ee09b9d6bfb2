"""A check's dice card names its skill as the rule pack labels it, in the viewer's
language, whatever the roller typed: "Spot Hidden" on an English page and "侦查" on a
Chinese one, for `.ra spot_hidden 60` and `.ra 侦查60` alike; a D&D check reads in
D&D's words; a name no pack labels reads as its id in words, and as text, never markup
(docs/rules.md, "Rule packs")."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS, SCREENS, snap

TIMEOUT = 20_000

pytestmark = BROWSER_TESTS


def _open(browser, server, key: str, language: str):
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(f"{server.ws_url.replace('ws://', 'http://')}#key={key}&lang={language}")
    page.locator("#table-screen").wait_for(state="visible")
    return page, errors


def _say(page, text: str) -> None:
    page.fill("#say", text)
    page.press("#say", "Enter")


def _cards(page, count: int) -> list[str]:
    """The skill of each of the story's first `count` dice cards, once they are drawn."""
    cards = page.locator("#story .dice .what")
    cards.nth(count - 1).wait_for()
    return cards.all_inner_texts()


def test_a_dice_card_names_the_skill_in_the_viewers_language(browser, server, room):
    english, english_errors = _open(browser, server, server.env.mint(room, "Kay", "keeper"), "en")
    chinese, chinese_errors = _open(browser, server, server.env.mint(room, "Pip"), "zh")
    assert chinese.locator("html").get_attribute("lang") == "zh-Hans"

    _say(english, ".ra spot_hidden 60")
    _say(english, ".ra 侦查60")
    _say(english, ".ra bribe_the_guard 40")
    _say(english, ".ra <b>loud</b> 40")
    _cards(english, 4)  # Kay's checks first, then Pip's
    _say(chinese, ".dnd Pip")  # a D&D sheet: Pip's checks roll d20
    _say(chinese, ".ra stealth 12")

    expected = {
        english: ["Spot Hidden", "Spot Hidden", "Bribe the guard", "<b>loud</b>", "Stealth"],
        chinese: ["侦查", "侦查", "Bribe the guard", "<b>loud</b>", "隐匿"],
    }
    for page, skills in expected.items():
        assert _cards(page, len(skills)) == skills
        card = page.locator("#story .dice").first
        assert card.get_attribute("aria-label").startswith(f"Kay: {skills[0]} "), "read aloud the same way"
        assert page.locator("#story .dice b").count() == 0, "a name goes in as text"

    SCREENS.mkdir(parents=True, exist_ok=True)
    snap(chinese, SCREENS / "dice-card-skill-zh.png")
    assert english_errors == [] and chinese_errors == [], english_errors + chinese_errors
    english.context.close()
    chinese.context.close()
