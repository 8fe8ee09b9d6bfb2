"""The browser tests borrow their contexts from a few kept ones
(loreweaver/testing/contexts.py): a context given back keeps nothing a later test could
notice, and two contexts lent at once are two browsers."""

from __future__ import annotations

from loreweaver.testing.browser import BROWSER_TESTS
from loreweaver.testing.contexts import blank_page_url

pytestmark = BROWSER_TESTS

# Any page of 127.0.0.1 holds storage; the anchors' blank page is one at hand.
PAGE = blank_page_url() + "a-page-of-a-test"


def _remember(page, value: str) -> None:
    page.goto(PAGE)
    page.evaluate(
        "value => { localStorage.setItem('seen', value); sessionStorage.setItem('seen', value);"
        " document.cookie = 'seen=' + value; }",
        value,
    )


def _seen(page) -> list:
    return page.evaluate(
        "() => [localStorage.getItem('seen'), sessionStorage.getItem('seen'), document.cookie]"
    )


def test_a_context_given_back_forgets_its_storage_and_cookies(browser):
    first = browser.new_context()
    _remember(first.new_page(), "first")
    first.close()

    again = browser.new_context()
    page = again.new_page()
    page.goto(PAGE)
    assert _seen(page) == [None, None, ""]
    assert again is first  # the same context, lent again: what the clearing is for
    again.close()


def test_two_contexts_lent_at_once_keep_their_own_storage(browser):
    kay, pat = browser.new_context(), browser.new_context()
    assert kay is not pat
    kay_page, pat_page = kay.new_page(), pat.new_page()
    _remember(kay_page, "kay")
    pat_page.goto(PAGE)
    assert _seen(pat_page) == [None, None, ""]
    _remember(pat_page, "pat")
    assert _seen(kay_page) == ["kay", "kay", "seen=kay"]
    kay.close()
    pat.close()


def test_a_page_given_back_in_the_middle_of_a_navigation_holds_nothing_up(browser):
    # The table's Leave reloads its page; a test may give its context back right then.
    # Closing such a page could wait for good (it hung a CI run): the context goes instead.
    for delay in range(12):  # given back at each moment of the navigation's first milliseconds
        context = browser.new_context()
        page = context.new_page()
        page.goto(PAGE)
        page.evaluate("() => setTimeout(() => location.replace(location.pathname + '?again'), 0)")
        page.wait_for_timeout(delay)
        context.close()
    again = browser.new_context().new_page()
    again.goto(PAGE)
    assert _seen(again) == [None, None, ""]
    again.context.close()
