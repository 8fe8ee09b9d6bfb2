"""The server's texts in English and Chinese, from one gettext catalog.

A text is written in English where it is used, marked with `_` (it goes into the
catalog under `locale/`, and is translated when it is said), and turned into
a viewer's language by `say`: the catalog's translation under `translation.override`,
then its values filled in (`str.format`). `make messages` refreshes the catalog from
the code; a test fails when a marked text has no Chinese translation. Rule packs and
skills are data files that carry their own translations.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, trans_real

__all__ = ["LANGUAGES", "Refusal", "_", "active_locale", "say"]

# The protocol's locales and Django's names for them.
LANGUAGES = {"en": "en", "zh": "zh-hans"}


def _(text: str) -> str:
    """Mark `text` for the catalog (what `gettext_noop` does, without needing settings,
    so the game's modules load outside a configured project too); `say` translates."""
    return text


def say(locale: str | None, text: str, **values: object) -> str:
    """`text` (an English text marked with `_`) in `locale` (the server's when None),
    with `values` filled in."""
    language = LANGUAGES.get(locale or settings.TRPG_LOCALE, "en")
    if text and settings.USE_I18N:
        # The language's catalog asked directly, as `gettext` under `override` would ask
        # it, without switching the thread's language twice: a turn says several texts.
        said = trans_real.translation(language).gettext(text)
    else:
        with translation.override(language):
            said = gettext(text)
    return said.format(**values) if values else said


def active_locale() -> str:
    """The protocol's name ("en", "zh") for the language Django speaks now (a console
    page's, from the operator's browser)."""
    return "zh" if (translation.get_language() or "").startswith("zh") else "en"


class Refusal(Exception):
    """Something the server will not do as asked, with the reason as a marked text and
    its values, so each viewer reads it in their own language (`message`)."""

    def __init__(self, text: str, **values: object) -> None:
        super().__init__(text.format(**values))
        self.text, self.values = text, values

    def message(self, locale: str) -> str:
        """The reason, in `locale`. A value that reads differently by language (a rule
        pack's word, with `pick(locale)`) is read in `locale` too."""
        values = {
            key: value.pick(locale) if callable(getattr(value, "pick", None)) else value
            for key, value in self.values.items()
        }
        return say(locale, self.text, **values)
