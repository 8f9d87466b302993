"""Display names: which characters one may hold, and when two names are one.

Other players read a display name in lists, games and emails, so one player must not be able
to take a name that reads as another's: "alice" beside "Alice", "Alice" spelt with a Cyrillic
A (U+0410), "AIice" with a capital I, or in full-width letters (U+FF21...). Two names are one
when either of their keys is equal (User keeps both, each under a unique constraint, so this
holds under races too):

- the skeleton of the name as typed: Unicode TR39's confusable skeleton (NFD, each character
  mapped to its prototype in Unicode's confusables.txt, NFD), which catches look-alikes that
  depend on case, like "I" and "l";
- the skeleton of its NFKC case fold (Unicode's NFKC_Casefold): case, width and compatibility
  forms first, then look-alikes, so "ALICE", in Latin letters or with a Cyrillic A, is
  "alice".

Names that only share some look-alike letters stay distinct: "Мария" and "Maria", "Иван" and
"Ivan". ICU (PyICU) computes both keys: its SpoofChecker is TR39's reference implementation
and brings confusables.txt with it, in the Unicode version of the ICU it is built on.

Refused outright: characters one cannot see or that change how the text around them is shown
(controls, line and paragraph separators, format characters such as zero-width spaces and the
bidi overrides and isolates, and every other default-ignorable code point, such as the Hangul
fillers), symbols drawn blank (the Braille blank, U+2800), private-use and unassigned code
points, and any spacing but single plain spaces between words.

Combining marks (accents written as their own character) are refused where they make no
letter: a mark at the start or after a space, digit or symbol; more than three on one letter;
and any mark that NFC leaves apart from a Latin, Greek or Cyrillic letter. The accents these
scripts write have precomposed letters (é, ő, ř, ё), so a mark left apart is decoration (a
stroke, an overlay, a stack: "Alice" with U+0336 beside "Alice"), while the marks of scripts
that write vowels with them (Devanagari, Thai, Hebrew...) stay. A letter with its accent is a
letter of its own: "Kovács Béla" and "Kovacs Bela" are two names, both real spellings.

Reserved: the names the site gives its bots ("Strong bot 2" in a tournament, "strong bot" at a
table), at every level and number, in every language of the site, and whatever reads like
them by either key (in full-width letters, with a Cyrillic o): see reserved_for_bots.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import icu
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.translation import gettext_lazy as _

#: general categories of characters a name may not hold: controls (newline, tab...),
#: format characters (zero-width space, bidi controls, soft hyphen...), surrogates, private
#: use, unassigned, line and paragraph separators (ICU's, not unicodedata's: the same Unicode
#: version as the skeletons)
_REFUSED_CATEGORIES = frozenset(
    {
        icu.UCharCategory.CONTROL_CHAR,
        icu.UCharCategory.FORMAT_CHAR,
        icu.UCharCategory.SURROGATE,
        icu.UCharCategory.PRIVATE_USE_CHAR,
        icu.UCharCategory.UNASSIGNED,
        icu.UCharCategory.LINE_SEPARATOR,
        icu.UCharCategory.PARAGRAPH_SEPARATOR,
    }
)

#: symbols that draw nothing, which no category or property above catches
_BLANK_SYMBOLS = frozenset({"\u2800"})  # BRAILLE PATTERN BLANK

#: combining marks: accents and vowel signs written as their own character after a letter
_MARK_CATEGORIES = frozenset(
    {
        icu.UCharCategory.NON_SPACING_MARK,
        icu.UCharCategory.ENCLOSING_MARK,
        icu.UCharCategory.COMBINING_SPACING_MARK,
    }
)
_LETTER_CATEGORIES = frozenset(
    {
        icu.UCharCategory.UPPERCASE_LETTER,
        icu.UCharCategory.LOWERCASE_LETTER,
        icu.UCharCategory.TITLECASE_LETTER,
        icu.UCharCategory.MODIFIER_LETTER,
        icu.UCharCategory.OTHER_LETTER,
    }
)
#: scripts whose accents all have precomposed letters: a mark NFC leaves apart is decoration
_PRECOMPOSED_SCRIPTS = frozenset({"Latn", "Grek", "Cyrl"})
#: marks one letter may carry (after NFC): vowel signs and tones of some scripts stack to three
MAX_MARKS_PER_LETTER = 3

# All are immutable once made, and ICU documents them as safe to share between threads.
_SPOOF_CHECKER = icu.SpoofChecker()
_NFKC_CASEFOLD = icu.Normalizer2.getNFKCCasefoldInstance()
_NFC = icu.Normalizer2.getNFCInstance()

DISPLAY_NAME_MIN_LENGTH = 2
DISPLAY_NAME_MAX_LENGTH = 40

SIMILAR_NAME = _("This name is too similar to another player's name.")


class NameTaken(Exception):
    """A name was taken by another player between the check and the save (the unique
    constraints on the keys refused it): answered like a name found taken by the check."""


class NameKeys(NamedTuple):
    """The two keys under which a display name must be unique (see the module's text)."""

    skeleton: str
    folded_skeleton: str


def skeleton(name: str) -> str:
    """TR39's confusable skeleton of ``name`` (ICU's uspoof_getSkeleton)."""
    return str(_SPOOF_CHECKER.getSkeleton(0, name))


def name_keys(name: str) -> NameKeys:
    """The keys of a display name: its skeleton, and the skeleton of its NFKC case fold.
    Both are empty for an empty name (no display name: never a duplicate)."""
    return NameKeys(skeleton(name), skeleton(str(_NFKC_CASEFOLD.normalize(name))))


def is_refused_character(character: str) -> bool:
    """A control, format (bidi), invisible or blank-looking character: refused in names, and
    in table talk but for its line breaks."""
    return (
        icu.Char.charType(character) in _REFUSED_CATEGORIES
        or icu.Char.hasBinaryProperty(character, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)
        or character in _BLANK_SYMBOLS
    )


def has_stray_marks(value: str) -> bool:
    """Whether ``value`` has a combining mark that makes no letter (see the module's text):
    after NFC, one not after a letter, one of more than MAX_MARKS_PER_LETTER on a letter, or
    one on a Latin, Greek or Cyrillic letter."""
    marks = 0
    base_ok = False
    for character in str(_NFC.normalize(value)):
        category = icu.Char.charType(character)
        if category not in _MARK_CATEGORIES:
            marks = 0
            base_ok = category in _LETTER_CATEGORIES and (
                icu.Script.getScript(character).getShortName() not in _PRECOMPOSED_SCRIPTS
            )
            continue
        marks += 1
        if not base_ok or marks > MAX_MARKS_PER_LETTER:
            return True
    return False


def validate_characters(value: str) -> None:
    """Refuse invisible, control and text-direction characters, line breaks, and spacing
    other than single plain spaces between words (two names must not differ by spaces)."""
    if any(is_refused_character(character) for character in value):
        raise ValidationError(
            _(
                "A display name cannot contain line breaks, invisible characters or "
                "characters that change the direction of the text."
            ),
            code="characters",
        )
    if has_stray_marks(value):
        raise ValidationError(
            _(
                "An accent or other mark must belong to a letter: use the accented letter "
                "itself, and no marks on spaces, digits or symbols."
            ),
            code="marks",
        )
    if (
        value != value.strip()
        or "  " in value
        or any(character.isspace() and character != " " for character in value)
    ):
        raise ValidationError(
            _("Use single spaces between words, and none at the start or the end."),
            code="spaces",
        )


#: a number no bot name holds, put where the number goes to find the text around it
_NUMBER_MARK = 918273645


def _unspaced(text: str) -> str:
    return "".join(text.split())


class _BotNames(NamedTuple):
    """The bot names of one key: (before the number, after it) for each, and the characters
    the key makes of digits (the skeleton makes "1" an "l", "0" an "O")."""

    around_number: frozenset[tuple[str, str]]
    digits: frozenset[str]


@functools.cache
def _bot_names(languages: tuple[str, ...]) -> tuple[_BotNames, _BotNames]:
    """For each key of accounts.display_names (skeleton, folded skeleton), the keys of the
    ways the site names a bot in each language, spaces left out: "Strong bot 2" in a
    tournament (the text before and after the number) and "strong bot" at a table (no
    number). Each also in lower case, as the case-sensitive skeleton tells them apart."""
    from games.models import BotKind
    from tournaments.models import bot_entrant_name

    names: set[tuple[str, str]] = set()
    for language in languages:
        with translation.override(language):
            for kind in BotKind:
                names.add((str(kind.label), ""))
            for level in (BotKind.EASY, BotKind.NORMAL, BotKind.STRONG):
                before, _mark, after = bot_entrant_name(level, _NUMBER_MARK).partition(
                    str(_NUMBER_MARK)
                )
                names.add((before, after))
    names |= {(before.lower(), after.lower()) for before, after in names}

    def of_key(index: int) -> _BotNames:
        def key(text: str) -> str:
            return _unspaced(name_keys(text)[index]) if text else ""

        return _BotNames(
            frozenset((key(before), key(after)) for before, after in names),
            frozenset("".join(key(digit) for digit in "0123456789")),
        )

    return of_key(0), of_key(1)


def reserved_for_bots(name: str) -> bool:
    """Whether ``name`` reads like a name the site gives its bots: either of its keys, spaces
    left out, is a bot name's key with nothing or any number where the number goes."""
    languages = tuple(code for code, _label in settings.LANGUAGES)
    for key, bots in zip(name_keys(name), _bot_names(languages), strict=True):
        key = _unspaced(key)
        for before, after in bots.around_number:
            if (
                len(key) >= len(before) + len(after)
                and key.startswith(before)
                and key.endswith(after)
                and set(key[len(before) : len(key) - len(after)]) <= bots.digits
            ):
                return True
    return False


def validate_not_reserved(value: str) -> None:
    """Refuse a name that reads like one of the site's bots': players must know who is one."""
    if reserved_for_bots(value):
        raise ValidationError(
            _("The site names its bots so: choose another name."), code="reserved"
        )


def tidy(name: str) -> str:
    """``name`` with every run of spacing and line breaks made one plain space, none at the
    ends, and the other characters validate_characters refuses left out: for names stored
    before these rules (the migration that filled the keys). May be too short to keep."""
    kept = "".join(" " if c.isspace() else "" if is_refused_character(c) else c for c in name)
    return " ".join(kept.split())


def settle(names: Iterable[tuple[Any, str]]) -> Iterator[tuple[Any, str, NameKeys]]:
    """Names stored before these rules, as (id, name) oldest first, made to follow them: each
    tidied; one that reads like an earlier one numbered ("Alice 2", "Alice 3"...: the older
    player keeps the name, the newer one can choose another in the settings); one left
    shorter than the minimum made blank (others then see the player's username). Yields
    (id, name, its keys)."""
    skeletons: set[str] = set()
    folded_skeletons: set[str] = set()
    for id_, stored in names:
        name = tidy(stored)
        if len(name) < DISPLAY_NAME_MIN_LENGTH:
            yield id_, "", name_keys("")
            continue
        candidate, number = name, 1
        keys = name_keys(candidate)
        while keys.skeleton in skeletons or keys.folded_skeleton in folded_skeletons:
            number += 1
            suffix = f" {number}"
            candidate = name[: DISPLAY_NAME_MAX_LENGTH - len(suffix)].rstrip() + suffix
            keys = name_keys(candidate)
        skeletons.add(keys.skeleton)
        folded_skeletons.add(keys.folded_skeleton)
        yield id_, candidate, keys
