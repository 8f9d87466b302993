"""The reply words of the active language, for ``grammar``: each a translation that lists the
accepted spellings separated by spaces (the first is the one the turn email shows), so that a
translator can add the forms players really write (``zielona zielony``)."""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import pgettext

from .grammar import Vocabulary, merged


def _words() -> dict[str, str]:
    # the context is written out in each call: xgettext reads only literal contexts
    return {
        "g": pgettext("reply word (spellings separated by spaces)", "green"),
        "y": pgettext("reply word (spellings separated by spaces)", "yellow"),
        "r": pgettext("reply word (spellings separated by spaces)", "red"),
        "p": pgettext("reply word (spellings separated by spaces)", "pink"),
        "b": pgettext("reply word (spellings separated by spaces)", "blue"),
        "play": pgettext("reply word (spellings separated by spaces)", "play lay"),
        "discard": pgettext("reply word (spellings separated by spaces)", "discard"),
        "draw": pgettext("reply word (spellings separated by spaces)", "draw take"),
        "deck": pgettext("reply word (spellings separated by spaces)", "deck"),
        "clover": pgettext("reply word (spellings separated by spaces)", "clover"),
        "pass": pgettext("reply word (spellings separated by spaces)", "pass no"),
        "big": pgettext("reply word (spellings separated by spaces)", "big"),
        "small": pgettext("reply word (spellings separated by spaces)", "small"),
        "done": pgettext("reply word (spellings separated by spaces)", "done"),
        "wish": pgettext("reply word (spellings separated by spaces)", "wish"),
        "point": pgettext("reply word (spellings separated by spaces)", "point"),
        "help": pgettext("reply word (spellings separated by spaces)", "help"),
    }


def _of_language(language: str) -> Vocabulary:
    with translation.override(language):
        return Vocabulary({key: tuple(text.split()) for key, text in _words().items()})


def vocabulary(language: str) -> Vocabulary:
    """The words of ``language`` (shown), and English's too: the short forms of an English
    email work for a player who has since changed their language."""
    own = _of_language(language)
    return own if language == "en" else merged(own, _of_language("en"))
