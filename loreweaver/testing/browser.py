"""The browser the tests drive: Debian's Chromium (no browser can be downloaded here),
through Playwright; tests of browser pages skip where it is missing, and run on the
embedded profile only (a page is a client like any other, and the server's own tests
cover both profiles); in CI a missing Chromium fails them instead. Screenshots go to
`build/screens/`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loreweaver.testing.servers import hosted_profile
from loreweaver.testing.tools import needs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENS = Path(__file__).resolve().parents[2] / "build" / "screens"

# The marks of a module of browser tests.
BROWSER_TESTS = [
    needs("chromium", "Debian's chromium drives these pages (.ci/run installs it)"),
    pytest.mark.skipif(hosted_profile(), reason="browser pages are tested on the embedded profile"),
]
