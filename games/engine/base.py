"""The interface every game of the engine offers; the site, bots and CLI speak only this."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any, ClassVar, Self

from .errors import IllegalAction, RecordError

MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: ``view(SPECTATOR)`` shows what anyone may see: no hand at all, no deck order, no removed cards
SPECTATOR = -1


class Game(ABC):
    """A game as a state machine: it knows whose action it awaits and which actions are legal.

    ``apply`` either changes the state by one action or raises ``IllegalAction`` and leaves the
    state exactly as it was.
    """

    __slots__ = ()

    name: ClassVar[str]
    #: option name -> default; a record naming any other option is malformed
    OPTIONS: ClassVar[dict[str, bool]] = {}
    #: every card of the game (copies repeated), in a fixed order used by ``deal``
    ALL_CARDS: ClassVar[tuple[str, ...]]
    HAND_SIZE: ClassVar[int] = 8
    REMOVED_WITH_TWO: ClassVar[int] = 30

    n_players: int
    options: dict[str, bool]
    actions: list[str]

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def new(
        cls, n_players: int, setup: dict[str, Any], options: dict[str, Any] | None = None
    ) -> Self:
        """A game at its start, from an explicit setup or from ``{"seed": N}``."""
        check_player_count(n_players)
        opts = cls.check_options(options or {})
        if "seed" in setup and len(setup) == 1:
            seed = setup["seed"]
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise RecordError("the seed must be a whole number")
            return cls._from_setup(n_players, cls.deal(n_players, seed), opts, dealt=True)
        return cls._from_setup(n_players, setup, opts)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, bool]:
        if not isinstance(options, dict):
            raise RecordError("options must be an object")
        if not cls.OPTIONS.keys() >= options.keys():
            unknown = sorted(set(options) - set(cls.OPTIONS))
            raise RecordError(f"unknown option {', '.join(unknown)} for {cls.name}")
        for key, value in options.items():
            if not isinstance(value, bool):
                raise RecordError(f"option {key} must be true or false")
        return {**cls.OPTIONS, **options}

    @classmethod
    def deal(cls, n_players: int, seed: int) -> dict[str, Any]:
        """The explicit setup that the project's own shuffle makes from ``seed``."""
        rng = random.Random(seed)
        cards = list(cls.ALL_CARDS)
        shuffle(rng, cards)
        removed_n = cls.REMOVED_WITH_TWO if n_players == 2 else 0
        removed, rest = cards[:removed_n], cards[removed_n:]
        hands = [rest[i * cls.HAND_SIZE : (i + 1) * cls.HAND_SIZE] for i in range(n_players)]
        deck = rest[n_players * cls.HAND_SIZE :]
        setup: dict[str, Any] = {"hands": hands, "deck": deck, "removed": removed}
        setup.update(cls.deal_extra(rng))
        return setup

    @classmethod
    def deal_extra(cls, rng: random.Random) -> dict[str, Any]:
        """Further setup a game deals after the cards (the board game's tiles)."""
        return {}

    @classmethod
    def check_cards(cls, n_players: int, setup: dict[str, Any]) -> None:
        """Hands, deck and removed hold every card of the game exactly once, in valid counts."""
        for key in ("hands", "deck", "removed"):
            if key not in setup:
                raise RecordError(f"the setup has no '{key}'")
        hands, deck, removed = setup["hands"], setup["deck"], setup["removed"]
        if not isinstance(hands, list) or len(hands) != n_players:
            raise RecordError(f"the setup needs one hand per player ({n_players})")
        for i, hand in enumerate(hands):
            if not isinstance(hand, list) or len(hand) != cls.HAND_SIZE:
                raise RecordError(f"hand {i} must hold {cls.HAND_SIZE} cards")
        if not isinstance(deck, list) or not isinstance(removed, list):
            raise RecordError("deck and removed must be lists of cards")
        want_removed = cls.REMOVED_WITH_TWO if n_players == 2 else 0
        if len(removed) != want_removed:
            raise RecordError(
                f"a {n_players}-player game has {want_removed} removed cards, not {len(removed)}"
            )
        try:
            if sorted(chain(*hands, deck, removed)) == cls._sorted_cards():
                return  # the common case: every card once, all strings
        except TypeError:
            pass  # not all strings: said below
        named = [card for hand in hands for card in hand] + deck + removed
        if not all(isinstance(card, str) for card in named):
            raise RecordError("cards are written as strings such as 'r7'")
        seen = Counter(named)
        full = Counter(cls.ALL_CARDS)
        for card in seen:
            if card not in full:
                raise RecordError(f"'{card}' is not a card of {cls.name}")
        for card, count in sorted(full.items()):
            if seen[card] != count:
                raise RecordError(
                    f"{card} appears {seen[card]} times; the game has it {count} times"
                )

    @classmethod
    def _sorted_cards(cls) -> list[str]:
        """``ALL_CARDS`` sorted, computed once per class: the whole-deck check of a setup."""
        cached = cls.__dict__.get("_SORTED_CARDS")
        if cached is None:
            cached = sorted(cls.ALL_CARDS)
            cls._SORTED_CARDS = cached  # type: ignore[attr-defined]
        return cached

    @classmethod
    @abstractmethod
    def _from_setup(
        cls, n_players: int, setup: dict[str, Any], options: dict[str, bool], dealt: bool = False
    ) -> Self:
        """Build the start state from a setup and checked options; ``dealt``: the setup is
        ``deal``'s own, whose cards need no check (a random game's deal is not checked again)."""

    # -- the state machine ----------------------------------------------------------------------
    @property
    @abstractmethod
    def to_move(self) -> int | None:
        """The player whose action is awaited; None once the game is finished."""

    @property
    def finished(self) -> bool:
        return self.to_move is None

    @abstractmethod
    def legal(self) -> list[str]:
        """Every distinct legal action now, in canonical spelling, sorted as plain strings."""

    def legal_shared(self) -> Sequence[str]:
        """``legal()`` without the copy: the game's own cached sequence where it keeps one.
        For a caller that reads it at once and never changes it (the random bot's pick)."""
        return self.legal()

    @abstractmethod
    def apply(self, action: str, player: int | None = None) -> None:
        """Apply one action (for ``player`` when given) or raise ``IllegalAction``."""

    def apply_all(self, actions: Iterable[str], player: int | None = None) -> None:
        """``apply`` each action in turn, stopping at the first that raises (those before it
        stay applied, as ``actions`` records). A game may do it in one loop instead of a call
        per action, for a replay's hundreds of actions."""
        apply = self.apply
        for action in actions:
            apply(action, player)

    def check_player(self, player: int | None) -> None:
        to_move = self.to_move
        if to_move is None:
            raise IllegalAction("game_over")
        if player is not None and player != to_move:
            raise IllegalAction("not_your_turn", to_move=to_move, player=player)

    @abstractmethod
    def scores(self) -> list[int]:
        """Final scores, or the scores as if the game ended now."""

    def winners(self) -> list[int]:
        """Every player with the highest score once finished (ties share the win); else []."""
        if not self.finished:
            return []
        scores = self.scores()
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]

    @abstractmethod
    def view(self, player: int | None = None) -> dict[str, Any]:
        """The state as JSON data: everything (None), or only what ``player`` may see
        (``SPECTATOR``: only what is public)."""

    @abstractmethod
    def cards_everywhere(self) -> list[str]:
        """Every card of the game wherever it now lies (hands, deck, removed, piles, rows).

        Property tests check this against ``ALL_CARDS``: no card is lost or made twice.
        """

    def copy(self) -> Self:
        """An independent copy (bots try actions on copies): every state field deep-copied."""
        game = self.__class__.__new__(self.__class__)
        for name in self._state_fields():
            setattr(game, name, _clone(getattr(self, name)))
        game._reset_caches()
        return game

    def _copy_shared(self) -> Self:
        """The start of a game's own fast ``copy``: a new game holding copies of the fields
        every game has (the hands, the deck, the piles, whose turn, the record)."""
        game = self.__class__.__new__(self.__class__)
        game.n_players = self.n_players
        game.options = dict(self.options)
        game.hands = [hand[:] for hand in self.hands]
        game.deck = self.deck[:]
        game.deck_pos = self.deck_pos
        game.removed = self.removed[:]
        game.piles = [pile[:] for pile in self.piles]
        game.phase = self.phase
        game.current = self.current
        game.end_reason = self.end_reason
        game.actions = self.actions[:]
        return game

    # -- snapshots: the site caches a game's state as JSON instead of replaying every time ------
    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON data; ``restore`` turns it back into an equal game.

        Every public attribute of a game is JSON data (lists, dicts, numbers, strings, None);
        attributes whose names start with ``_`` are caches and are rebuilt.
        """
        return {
            "game": self.name,
            "state": {name: getattr(self, name) for name in self._state_fields()},
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Self:
        """The game a ``snapshot`` describes (a JSON round trip included)."""
        if data.get("game") != cls.name:
            raise RecordError(f"the snapshot is not of {cls.name}")
        game = cls.__new__(cls)
        state = data["state"]
        for name in game._state_fields():
            setattr(game, name, state[name])
        game._reset_caches()
        return game.copy()  # a deep copy: the caller's data stays independent

    @classmethod
    def _state_fields(cls) -> list[str]:
        names: list[str] = []
        for klass in cls.__mro__:
            for name in getattr(klass, "__slots__", ()):
                if not name.startswith("_") and name not in names:
                    names.append(name)
        return names

    def _reset_caches(self) -> None:  # noqa: B027  (a hook: games without caches skip it)
        """Clear the caches a restored game must not take from the snapshot."""

    def check_viewer(self, player: int | None) -> None:
        if player is not None and player != SPECTATOR and not 0 <= player < self.n_players:
            raise IllegalAction("bad_player", player=player, last=self.n_players - 1)


class DealtGame(Game):
    """What both Keltis games share: numbered phases (one of them 'finished'), the player whose
    action is awaited, a deck drawn from a position, and a cached legal list."""

    __slots__ = ()

    PHASE_NAMES: ClassVar[tuple[str, ...]]
    FINISHED_PHASE: ClassVar[int]
    #: the keys an explicit setup may have, and how many discard piles the game has
    SETUP_KEYS: ClassVar[frozenset[str]] = frozenset({"hands", "deck", "removed"})
    PILE_COUNT: ClassVar[int]

    phase: int
    current: int
    hands: list[list[str]]
    deck: list[str]
    deck_pos: int
    removed: list[str]
    piles: list[list[str]]
    end_reason: str | None
    _legal: tuple[str, ...] | list[str] | None

    @classmethod
    def _dealt(
        cls, n_players: int, setup: dict[str, Any], options: dict[str, bool], dealt: bool = False
    ) -> Self:
        """A game with the part of the start state both games share (checked cards, hands,
        deck, empty piles, the first player in the first phase); the caller adds the rest.
        ``dealt``: the setup is ``deal``'s own, not checked again."""
        if not dealt:
            if not cls.SETUP_KEYS.issuperset(setup):
                unknown = sorted(set(setup) - cls.SETUP_KEYS)
                raise RecordError(f"unknown setup key {', '.join(unknown)}")
            cls.check_cards(n_players, setup)
        game = cls.__new__(cls)
        game.n_players = n_players
        game.options = options
        game.hands = [list(hand) for hand in setup["hands"]]
        game.deck = list(setup["deck"])
        game.deck_pos = 0
        game.removed = list(setup["removed"])
        game.piles = [[] for _ in range(cls.PILE_COUNT)]
        game.phase = 0
        game.current = 0
        game.end_reason = None
        game.actions = []
        game._legal = None
        return game

    @property
    def to_move(self) -> int | None:
        return None if self.phase == self.FINISHED_PHASE else self.current

    @property
    def phase_name(self) -> str:
        return self.PHASE_NAMES[self.phase]

    @property
    def deck_count(self) -> int:
        return len(self.deck) - self.deck_pos

    def _reset_caches(self) -> None:
        self._legal = None

    def legal(self) -> list[str]:
        return list(self.legal_shared())

    def legal_shared(self) -> Sequence[str]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._list_legal()
        return legal

    @abstractmethod
    def _list_legal(self) -> tuple[str, ...] | list[str]:
        """The legal list that ``legal_shared`` caches until the next action."""

    @abstractmethod
    def player_score(self, player: int) -> int:
        """The player's score, final or as if the game ended now."""

    def scores(self) -> list[int]:
        return [self.player_score(p) for p in range(self.n_players)]

    @abstractmethod
    def laid_cards(self) -> list[str]:
        """Every card laid in front of the players (columns, rows, point rows)."""

    def cards_everywhere(self) -> list[str]:
        cards = [card for hand in self.hands for card in hand]
        cards += self.deck[self.deck_pos :]
        cards += self.removed
        for pile in self.piles:
            cards += pile
        return cards + self.laid_cards()


def _clone(value: Any) -> Any:
    """A deep copy of JSON-shaped state (lists and dicts of scalars), faster than deepcopy."""
    kind = type(value)
    if kind is list:
        return [_clone(x) if type(x) in (list, dict) else x for x in value]
    if kind is dict:
        return {k: _clone(x) if type(x) in (list, dict) else x for k, x in value.items()}
    return value


_BIT_LENGTHS = [n.bit_length() for n in range(256)]


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)`` step for step (the same result for the same generator state),
    without its per-card method calls: the deal of a seed must never change."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS if len(items) < len(_BIT_LENGTHS) else None
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = bits[n] if bits is not None else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def check_player_count(n_players: int) -> None:
    if not isinstance(n_players, int) or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        raise RecordError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players")
