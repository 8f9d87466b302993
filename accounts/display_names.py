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
filler), private-use and unassigned code points, and any spacing but single plain spaces
between words.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import icu
from django.core.exceptions import ValidationError
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

# Both are immutable once made, and ICU documents them as safe to share between threads.
_SPOOF_CHECKER = icu.SpoofChecker()
_NFKC_CASEFOLD = icu.Normalizer2.getNFKCCasefoldInstance()

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


def _is_refused(character: str) -> bool:
    return icu.Char.charType(character) in _REFUSED_CATEGORIES or icu.Char.hasBinaryProperty(
        character, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    )


def validate_characters(value: str) -> None:
    """Refuse invisible, control and text-direction characters, line breaks, and spacing
    other than single plain spaces between words (two names must not differ by spaces)."""
    if any(_is_refused(character) for character in value):
        raise ValidationError(
            _(
                "A display name cannot contain line breaks, invisible characters or "
                "characters that change the direction of the text."
            ),
            code="characters",
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


def tidy(name: str) -> str:
    """``name`` with every run of spacing and line breaks made one plain space, none at the
    ends, and the other characters validate_characters refuses left out: for names stored
    before these rules (the migration that filled the keys). May be too short to keep."""
    kept = "".join(" " if c.isspace() else "" if _is_refused(c) else c for c in name)
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
