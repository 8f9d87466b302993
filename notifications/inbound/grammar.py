"""A line of a reply read as one move: pure Python, no Django.

Two spellings are read. The canonical one of records.md (``play r7 big``, ``discard b3``,
``draw deck``, ``draw r``, ``clover pass``, ``wish r5 P5``, ``done``) always works, whatever the
player's language. The short forms the turn email lists use the words of the player's language
(``zöld 5``, ``eldob zöld 5``, ``húz pakli``): a card alone means laying it, a verb word first
means that verb. Case and accents are ignored (``ZOLD 5`` is ``zöld 5``), except that ``P7``
(point card) and ``p7`` (pink 7) stay apart in the canonical spelling, as records.md writes them.

A line is read into the canonical action it spells, then matched against the legal actions:
``zöld 5`` means ``play g5 big`` when that and nothing else begins so; when several do, the
player is asked which (``Reading.candidates``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

HELP = "help"
COLOURS = ("g", "y", "r", "p", "b")
#: the vocabulary's keys: the five colours and these words
WORDS = (
    "play",
    "discard",
    "draw",
    "deck",
    "clover",
    "pass",
    "big",
    "small",
    "done",
    "wish",
    "point",
    "help",
)
VERBS = ("play", "discard", "draw", "clover", "wish", "done")

_CARD = re.compile(r"([gyrpb])(\d{1,2}|x)")
_POINT_CARD = re.compile(r"[PW]\d{1,2}")
_NUMBER = re.compile(r"\d{1,2}")
#: punctuation a mail client or a player adds around words ("zöld 5." "Zöld 5!")
_SEPARATORS = re.compile(
    "[\\s,;:.!?\"'()\\[\\]{}*_\u00ab\u00bb\u201e\u201c\u201d\u201a\u2018\u2019]+"
)


def fold(text: str) -> str:
    """Lower case without accents: ``Zöld`` → ``zold``, ``зелёная`` → ``зеленая``."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare).casefold()


@dataclass(frozen=True)
class Vocabulary:
    """The words of one language: key (a colour letter or one of ``WORDS``) → its accepted
    spellings, the first the one the email shows."""

    words: dict[str, tuple[str, ...]]
    _index: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, str] = {}
        for key, spellings in self.words.items():
            for spelling in spellings:
                folded = fold(spelling)
                if folded and folded not in index:  # the first key to claim a spelling keeps it
                    index[folded] = key
        object.__setattr__(self, "_index", index)

    def shown(self, key: str) -> str:
        return self.words[key][0]

    def key_of(self, word: str) -> str | None:
        return self._index.get(fold(word))

    def clashes(self) -> list[str]:
        """Spellings given to two keys (a translation to fix): the second key never gets them."""
        seen: dict[str, str] = {}
        found = []
        for key, spellings in self.words.items():
            for spelling in spellings:
                folded = fold(spelling)
                if seen.setdefault(folded, key) != key:
                    found.append(folded)
        return found


def merged(*vocabularies: Vocabulary) -> Vocabulary:
    """One vocabulary accepting every given one's words; the first one's words are shown and
    win a spelling two of them give to different keys."""
    words: dict[str, tuple[str, ...]] = {}
    for vocabulary in vocabularies:
        for key, spellings in vocabulary.words.items():
            words[key] = words.get(key, ()) + tuple(spellings)
    return Vocabulary(words)


# -- reading ---------------------------------------------------------------------------------------
Item = tuple[str, str]  # (kind, value): ("card", "g5"), ("colour", "g"), ("word", "big"), ...


def _items(line: str, vocabulary: Vocabulary) -> list[Item] | None:
    """The line's words as items, or None when a word is not understood."""
    spaced = line.replace(">", " > ").replace("→", " > ")
    raw_words = [w for w in _SEPARATORS.split(spaced) if w]
    items: list[Item] = []
    for raw in raw_words:
        word = fold(raw)
        if _POINT_CARD.fullmatch(raw):
            items.append(("card", raw))
        elif raw == "P":
            items.append(("word", "point"))
        elif _CARD.fullmatch(word):
            items.append(("card", word))
        elif _NUMBER.fullmatch(word):
            items.append(("number", word))
        elif word in (">", "-", "x"):
            items.append((word, word))
        elif word in COLOURS:
            items.append(("colour", word))
        else:
            key = vocabulary.key_of(word)
            if key is None:
                return None
            items.append(("colour", key) if key in COLOURS else ("word", key))
    return _cards(items)


def _cards(items: list[Item]) -> list[Item]:
    """A colour or the point word followed by a value is one card: ``zöld 5`` → ``g5``."""
    out: list[Item] = []
    i = 0
    while i < len(items):
        kind, value = items[i]
        nxt = items[i + 1] if i + 1 < len(items) else None
        if kind == "colour" and nxt and nxt[0] in ("number", "x"):
            out.append(("card", value + nxt[1]))
            i += 2
        elif (kind, value) == ("word", "point") and nxt and nxt[0] == "number":
            out.append(("card", "P" + nxt[1]))
            i += 2
        else:
            out.append(items[i])
            i += 1
    return out


def spell(line: str, vocabulary: Vocabulary) -> str | None:
    """The canonical action a line spells (``HELP`` for help), or None when it spells none.
    Whether the action is legal is not asked here."""
    items = _items(line, vocabulary)
    if not items:
        return None
    if items == [("word", "help")]:
        return HELP
    verb = "play"
    if items[0][0] == "word" and items[0][1] in VERBS:
        verb = items.pop(0)[1]
    elif items == [("word", "deck")]:
        return "draw deck"
    return _SPELLERS[verb](items)


def _play(items: list[Item]) -> str | None:
    if not items or items[0][0] != "card":
        return None
    card, rest = items[0][1], items[1:]
    if not rest:
        return f"play {card}"
    if rest in ([("word", "big")], [("word", "small")]):
        return f"play {card} {rest[0][1]}"
    if len(rest) == 1 and rest[0][0] == "colour" and card.startswith("P"):
        return f"play {card} {rest[0][1]}"
    if len(rest) == 2 and rest[0][0] == ">":
        if rest[1][0] == "colour":
            return f"play {card} >{rest[1][1]}"
        if rest[1][0] == "-":
            return f"play {card} >-"
    return None


def _discard(items: list[Item]) -> str | None:
    if len(items) == 1 and items[0][0] == "card":
        return f"discard {items[0][1]}"
    return None


def _draw(items: list[Item]) -> str | None:
    if len(items) != 1:
        return None
    kind, value = items[0]
    if (kind, value) == ("word", "deck"):
        return "draw deck"
    if kind == "colour":
        return f"draw {value}"
    if (kind, value) == ("word", "point"):
        return "draw P"
    return None


def _clover(items: list[Item]) -> str | None:
    if len(items) != 1:
        return None
    kind, value = items[0]
    if kind == "colour":
        return f"clover {value}"
    if (kind, value) == ("word", "pass"):
        return "clover pass"
    return None


def _wish(items: list[Item]) -> str | None:
    if len(items) == 2 and all(kind == "card" for kind, _ in items):
        return f"wish {items[0][1]} {items[1][1]}"
    return None


def _done(items: list[Item]) -> str | None:
    return "done" if not items else None


_SPELLERS = {
    "play": _play,
    "discard": _discard,
    "draw": _draw,
    "clover": _clover,
    "wish": _wish,
    "done": _done,
}


@dataclass(frozen=True)
class Reading:
    """What a line means now: ``action`` when it names one legal action; otherwise
    ``spelled`` is what it spelled (None: nothing readable) and ``candidates`` the legal
    actions it could mean."""

    action: str | None = None
    spelled: str | None = None
    candidates: tuple[str, ...] = ()
    help: bool = False


def read_line(line: str, legal: Iterable[str], vocabulary: Vocabulary) -> Reading:
    legal = list(legal)
    spelled = spell(line, vocabulary)
    if spelled == HELP:
        return Reading(help=True)
    if spelled is None:
        return Reading()
    if spelled in legal:
        return Reading(spelled, spelled)
    tokens = spelled.split()
    if tokens[0] == "wish" and len(tokens) == 3:
        swapped = f"wish {tokens[2]} {tokens[1]}"
        if swapped in legal:
            return Reading(swapped, spelled)
    longer = tuple(a for a in legal if a.startswith(spelled + " "))
    if len(longer) == 1:
        return Reading(longer[0], spelled)
    return Reading(None, spelled, longer)


#: a line of more words is never taken for a move attempt: the longest spelling of a move has
#: five ("play point 5 > green")
MOVE_WORDS = 5
#: the vocabulary's keys a move attempt may begin with (besides a colour or a card)
_MOVE_HEADS = frozenset(VERBS) | {"deck", "point"}


def looks_like_move(line: str, vocabulary: Vocabulary) -> bool:
    """Whether a line that is no legal move reads as an attempt at one (a typo, a move of
    another turn, "help") rather than words to the table, so that it is refused or left unread,
    never posted as a message. It does when it spells an action or help (``spell``); or when
    it has at most ``MOVE_WORDS`` words and the first is a verb, a colour, the deck, the point
    word or a card (``zöld 5 nagyy``, ``zöld5``, ``lay r77``); or when it has at most three
    words and one holds a digit (``purple 12``). So "Take care" (``take`` draws) is refused
    too: the price of never posting a typo."""
    if spell(line, vocabulary) is not None:
        return True
    words = [w for w in _SEPARATORS.split(line.replace(">", " > ")) if w]
    if not words or len(words) > MOVE_WORDS:
        return False
    first = fold(words[0])
    if _CARD.fullmatch(first) or _POINT_CARD.fullmatch(words[0]) or first in COLOURS:
        return True
    stem = first.rstrip("0123456789x") or first  # "zöld5": the word before its number
    for word in (first, stem):
        key = vocabulary.key_of(word)
        if key is not None and (key in COLOURS or key in _MOVE_HEADS):
            return True
    return len(words) <= 3 and any(c.isdigit() for w in words for c in w)


# -- writing ---------------------------------------------------------------------------------------
def _card_words(card: str, vocabulary: Vocabulary) -> str:
    if card[0] in ("P", "W"):
        return f"{vocabulary.shown('point')} {card[1:]}" if card[0] == "P" else card
    return f"{vocabulary.shown(card[0])} {card[1:]}"


def short_form(action: str, vocabulary: Vocabulary) -> str:
    """The reply text the turn email lists for ``action``, in the vocabulary's words;
    ``read_line`` reads it back as the same action."""
    tokens = action.split()
    verb, rest = tokens[0], tokens[1:]
    if verb == "play" and rest:
        words = [_card_words(rest[0], vocabulary)]
        for extra in rest[1:]:
            if extra in ("big", "small"):
                words.append(vocabulary.shown(extra))
            elif extra == ">-":
                words.append("> -")
            elif extra.startswith(">"):
                words.append(f"> {vocabulary.shown(extra[1:])}")
            elif extra in COLOURS:
                words.append(vocabulary.shown(extra))
        return " ".join(words)
    if verb in ("discard", "wish"):
        return " ".join([vocabulary.shown(verb), *(_card_words(c, vocabulary) for c in rest)])
    if verb == "draw" and rest:
        target = rest[0]
        word = {"deck": "deck", "P": "point"}.get(target, target)
        return f"{vocabulary.shown('draw')} {vocabulary.shown(word)}"
    if verb == "clover" and rest:
        return f"{vocabulary.shown('clover')} {vocabulary.shown(rest[0])}"
    if verb == "done":
        return vocabulary.shown("done")
    return action
