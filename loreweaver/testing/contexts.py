"""Browser contexts for the tests, lent from a few long-lived ones.

Chromium spends about 0.8 s of CPU on each new context: its first page needs a renderer
process of its own, and a new renderer works for a second or two after it starts. A
context whose renderer is still alive takes a new page of the same site (every test
server is on 127.0.0.1) for a fraction of that. So a test process keeps its contexts:
`new_context` lends a free one made with the same options (or makes one), and
`close()` gives it back. Each kept context holds an anchor page on a blank page of
127.0.0.1, which keeps its renderer alive between tests.

What a test could notice of the context's earlier borrower is cleared when it is given
back: its pages are closed, the storage of every origin they opened (localStorage,
sessionStorage, IndexedDB, caches) and every cookie are cleared. A page that does not
close (as one closed in the middle of a navigation may not) takes its context with it,
as a test's own context would go. Two contexts lent at
once are always two different contexts, so the people of one test never share a
browser. `TRPG_TEST_FRESH_CONTEXTS=1` makes a new context for every request instead,
to rule this out."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout

FRESH = bool(os.environ.get("TRPG_TEST_FRESH_CONTEXTS"))
CLOSE_TIMEOUT = 2_000  # ms a page given back has to close (it takes a few)


class _BlankPage(BaseHTTPRequestHandler):
    """Serves the anchors' empty page."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>anchor</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:
        pass


_anchor_url: str | None = None


def blank_page_url() -> str:
    """The address of this process's blank page on 127.0.0.1 (served by a thread)."""
    global _anchor_url
    if _anchor_url is None:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _BlankPage)
        threading.Thread(target=server.serve_forever, daemon=True, name="anchor-page").start()
        _anchor_url = f"http://127.0.0.1:{server.server_address[1]}/"
    return _anchor_url


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None


@dataclass
class _Kept:
    """What is kept with a context: the options it was made with, its anchor page, a
    DevTools session on it, and the origins its current borrower's pages opened."""

    options: str
    anchor: object
    devtools: object
    origins: set[str] = field(default_factory=set)


class LendingBrowser:
    """Playwright's `Browser` as the tests use it, with contexts lent (see the module).
    Anything else is the browser's own."""

    def __init__(self, browser) -> None:
        self._browser = browser
        self._kept: dict[object, _Kept] = {}
        self._free: dict[str, list] = {}
        self._lent: list = []

    def __getattr__(self, name: str):
        return getattr(self._browser, name)

    def new_context(self, **options):
        """A context made with `options` (those of `Browser.new_context`), lent until
        its `close()`."""
        if FRESH:
            return self._browser.new_context(**options)
        key = json.dumps(options, sort_keys=True, default=str)
        free = self._free.setdefault(key, [])
        context = free.pop() if free else self._keep(key, options)
        self._lent.append(context)
        return context

    def new_page(self, **options):
        """A page in a context of its own (as `Browser.new_page`), given back at the
        end of the module or by `page.context.close()`."""
        return self.new_context(**options).new_page()

    def _keep(self, key: str, options: dict):
        context = self._browser.new_context(**options)
        anchor = context.new_page()
        anchor.goto(blank_page_url())
        kept = _Kept(key, anchor, context.new_cdp_session(anchor))
        self._kept[context] = kept

        def opened(frame) -> None:
            if origin := _origin(frame.url):
                kept.origins.add(origin)

        context.on("page", lambda page: page.on("framenavigated", opened))
        # A test closes its context as it would a context of its own; that gives it back.
        context.close = lambda **_options: self._give_back(context)
        return context

    def _give_back(self, context) -> None:
        if context not in self._lent:
            return
        self._lent.remove(context)
        kept = self._kept[context]
        pages = [page for page in context.pages if page is not kept.anchor]
        for page in pages:
            if origin := _origin(page.url):
                kept.origins.add(origin)
            # Not waited for here: a page closed in the middle of a navigation (the
            # table's Leave reloads the page) could keep `close()` waiting for good.
            page.close(run_before_unload=True)
        for page in pages:
            if page.is_closed():
                continue
            try:
                page.wait_for_event("close", timeout=CLOSE_TIMEOUT)
            except PlaywrightTimeout:
                # A page that will not close: the context goes, as a test's own would.
                del self._kept[context]
                type(context).close(context)
                return
        for origin in sorted(kept.origins):
            kept.devtools.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        kept.origins.clear()
        context.clear_cookies()
        self._free[kept.options].append(context)

    def give_back_all(self) -> None:
        """Give back every context still lent (at the end of a module), so that no page
        of one module is still running while the next plays."""
        for context in list(self._lent):
            self._give_back(context)
        if FRESH:
            for context in self._browser.contexts:
                context.close()

    def close(self) -> None:
        """Close the browser and every context kept."""
        self._browser.close()
