"""Keltis, the board game (rules.md §1), as a state machine over records.md actions.

The state is kept in flat lists indexed by player and colour, actions are parsed by a table
look-up, and each player's play-phase legal list is kept between their turns (their draws and
discards add and take out one card's actions), so that a complete random game and a replay stay
cheap (see bench/engine.py; bench/engine_checksum.py checks that the answers stay the same).
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Iterable
from typing import Any, ClassVar, Self

from .base import MAX_PLAYERS, DealtGame, shuffle
from .board_layouts import (
    DEFAULT_LAYOUT,
    END_STONE,
    GOAL_FROM,
    STONE_VALUES,
    TILES,
    tile_positions,
)
from .cards import (
    ASCENDING,
    COLOUR_INDEX,
    COLOUR_NAMES,
    COLOURS,
    DESCENDING,
    DIRECTION_NAMES,
    UNDECIDED,
    card_sort_key,
    number_cards,
    sort_cards,
)
from .errors import IllegalAction, MalformedAction, RecordError

GOAL_FIGURES_TO_END = 5
SMALL_FIGURES = 4
WISH_SCORES = (-4, -3, 2, 3, 6, 10)  # index = wishing stones held, capped at 5
WISH_TILE, CLOVER_TILE = "wish", "clover"

PLAY_PHASE, CLOVER_PHASE, DRAW_PHASE, FINISHED = 0, 1, 2, 3
PHASE_NAMES = ("play", "clover", "draw", "finished")

# Parsed actions: (kind, card, colour index, value, extra).
START, PLAY, REDIRECT, DISCARD, CLOVER, DRAW = range(6)
NOBODY = -1  # '>-' and 'clover pass' move no figure; 'draw deck' takes from no pile

_CARDS = tuple(number_cards({v: 1 for v in range(11)}))
_CARD_CV = {card: (COLOUR_INDEX[card[0]], int(card[1:])) for card in _CARDS}


def _action_table() -> dict[str, tuple[int, str, int, int, Any]]:
    table: dict[str, tuple[int, str, int, int, Any]] = {}
    for card, (ci, value) in _CARD_CV.items():
        table[f"play {card} big"] = (START, card, ci, value, True)
        table[f"play {card} small"] = (START, card, ci, value, False)
        table[f"play {card}"] = (PLAY, card, ci, value, None)
        table[f"play {card} >-"] = (REDIRECT, card, ci, value, NOBODY)
        for ti, target in enumerate(COLOURS):
            table[f"play {card} >{target}"] = (REDIRECT, card, ci, value, ti)
        table[f"discard {card}"] = (DISCARD, card, ci, value, None)
    table["clover pass"] = (CLOVER, "", NOBODY, 0, NOBODY)
    table["draw deck"] = (DRAW, "", NOBODY, 0, NOBODY)
    for ci, colour in enumerate(COLOURS):
        table[f"clover {colour}"] = (CLOVER, "", ci, 0, ci)
        table[f"draw {colour}"] = (DRAW, "", ci, 0, ci)
    return table


ACTIONS = _action_table()
#: the actions each phase takes, parsed: a draw's pile (NOBODY: the deck), a lay or discard
#: (kind, card, colour index, value, extra), a clover's path (NOBODY: pass)
_DRAW_SOURCES = {text: parsed[4] for text, parsed in ACTIONS.items() if parsed[0] == DRAW}
#: (a discard's extra here: the card's place in a lay table, ``_LAY_INDEX``)
_PLAYS = {
    text: parsed if parsed[0] != DISCARD else (*parsed[:4], parsed[2] * 11 + parsed[3])
    for text, parsed in ACTIONS.items()
    if parsed[0] <= DISCARD
}
_CLOVERS = {text: parsed[4] for text, parsed in ACTIONS.items() if parsed[0] == CLOVER}
#: what a phase asks for when given another of the game's actions
_NOT_NOW = {PLAY_PHASE: "must_play", CLOVER_PHASE: "must_clover", DRAW_PHASE: "must_draw"}
_TILE_POINTS = {"1": 1, "2": 2, "3": 3}
#: [number of players][player]: who plays next
_NEXT_PLAYER = tuple(tuple((p + 1) % n for p in range(n)) for n in range(MAX_PLAYERS + 1))
_S_PLAY = {card: f"play {card}" for card in _CARDS}
_S_BIG = {card: f"play {card} big" for card in _CARDS}
_S_SMALL = {card: f"play {card} small" for card in _CARDS}
_S_DISCARD = {card: f"discard {card}" for card in _CARDS}
_S_NONE = {card: f"play {card} >-" for card in _CARDS}
_S_REDIRECT = {card: tuple(f"play {card} >{t}" for t in COLOURS) for card in _CARDS}
_S_CLOVER = tuple(f"clover {c}" for c in COLOURS)
_S_DRAW = tuple(f"draw {c}" for c in COLOURS)
#: the draw phase's legal list for each set of drawable piles (bit ``ci`` set: pile ``ci``)
_DRAW_LEGAL = tuple(
    tuple(sorted(["draw deck", *(_S_DRAW[ci] for ci in range(5) if mask >> ci & 1)]))
    for mask in range(32)
)
_TILE_POSITIONS = tile_positions(DEFAULT_LAYOUT)
#: a card's lays, sorted: starting a path (index: 2 if the big figure is free, + 1 if a small
#: one is), the figure at its end (index: the movable figures' bits), or a plain step
_START_OPTIONS = {
    card: ((), (_S_SMALL[card],), (_S_BIG[card],), (_S_BIG[card], _S_SMALL[card]))
    for card in _CARDS
}
_END_OPTIONS = {
    card: tuple(
        tuple(sorted([_S_NONE[card], *(_S_REDIRECT[card][t] for t in range(5) if mask >> t & 1)]))
        for mask in range(32)
    )
    for card in _CARDS
}
_VALUES = range(11)
_COLOUR_CARDS = tuple(tuple(f"{colour}{value}" for value in _VALUES) for colour in COLOURS)
#: card -> its place in a player's lay table (``BoardGame._lay_table``): colour * 11 + value
_LAY_INDEX = {card: ci * len(_VALUES) + value for card, (ci, value) in _CARD_CV.items()}
#: card -> (its discard, its lay index): what a draw puts into a kept play list
_CARD_KEYS = {card: (_S_DISCARD[card], _LAY_INDEX[card]) for card in _CARDS}


def _fits(d: int, last: int, value: int) -> bool:
    """Whether a card of ``value`` may follow ``last`` in a column going ``d``."""
    return d == UNDECIDED or (value >= last if d == ASCENDING else value <= last)


#: a colour's lays by card value, on an empty column: [colour][free figures as _START_OPTIONS]
_START_LAYS = tuple(
    tuple(tuple(_START_OPTIONS[card][free] for card in cards) for free in range(4))
    for cards in _COLOUR_CARDS
)
#: ... after ``last`` in a column going ``d``, its figure before the end: [colour][d][last]
#: (d indexes as UNDECIDED 0, ASCENDING 1, DESCENDING -1)
_STEP_LAYS = tuple(
    tuple(
        tuple(
            tuple(
                (_S_PLAY[card],) if _fits(d, last, value) else ()
                for value, card in enumerate(cards)
            )
            for last in _VALUES
        )
        for d in (UNDECIDED, ASCENDING, DESCENDING)
    )
    for cards in _COLOUR_CARDS
)
#: ... its figure on the end stone, by (colour, d, last, movable figures' bits): made when needed
_END_LAYS: dict[tuple[int, int, int, int], tuple[tuple[str, ...], ...]] = {}


def _end_lays(ci: int, d: int, last: int, movable: int) -> tuple[tuple[str, ...], ...]:
    key = (ci, d, last, movable)
    lays = _END_LAYS.get(key)
    if lays is None:
        lays = _END_LAYS[key] = tuple(
            _END_OPTIONS[card][movable] if _fits(d, last, value) else ()
            for value, card in enumerate(_COLOUR_CARDS[ci])
        )
    return lays


def wish_score(stones: int) -> int:
    return WISH_SCORES[min(stones, len(WISH_SCORES) - 1)]


class BoardGame(DealtGame):
    """One game of Keltis (board game) from its setup; ``actions`` holds what was applied."""

    name = "keltis"
    PHASE_NAMES = PHASE_NAMES
    FINISHED_PHASE = FINISHED
    SETUP_KEYS = frozenset({"hands", "deck", "removed", "tiles"})
    PILE_COUNT = len(COLOURS)
    OPTIONS: ClassVar[dict[str, bool]] = {"no_redraw_own_discard": False}
    ALL_CARDS = tuple(number_cards({v: 2 for v in range(11)}))

    __slots__ = (
        "_lay_tables",
        "_legal",
        "_plays",
        "actions",
        "big",
        "col_cards",
        "current",
        "deck",
        "deck_pos",
        "dirs",
        "discarded",
        "end_reason",
        "goal",
        "hands",
        "last",
        "n_players",
        "no_redraw",
        "options",
        "phase",
        "piles",
        "points",
        "pos",
        "removed",
        "smalls_out",
        "tiles",
        "wishes",
    )  # fmt: skip

    # -- setup ----------------------------------------------------------------------------------
    @classmethod
    def deal_extra(cls, rng: random.Random) -> dict[str, Any]:
        tiles = list(TILES)
        shuffle(rng, tiles)
        board: dict[str, dict[str, str]] = {c: {} for c in COLOURS}
        for (colour, stone), tile in zip(_TILE_POSITIONS, tiles, strict=True):
            board[colour][str(stone)] = tile
        return {"tiles": board}

    @classmethod
    def _from_setup(
        cls, n_players: int, setup: dict[str, Any], options: dict[str, bool], dealt: bool = False
    ) -> Self:
        game = cls._dealt(n_players, setup, options, dealt)
        game.no_redraw = options["no_redraw_own_discard"]
        game.tiles = _read_tiles(setup.get("tiles"))
        game.col_cards = [[[] for _ in COLOURS] for _ in range(n_players)]
        game.last = [[-1] * 5 for _ in range(n_players)]
        game.dirs = [[UNDECIDED] * 5 for _ in range(n_players)]
        game.pos = [[0] * 5 for _ in range(n_players)]
        game.big = [NOBODY] * n_players
        game.smalls_out = [0] * n_players
        game.wishes = [0] * n_players
        game.points = [0] * n_players
        game.goal = 0
        game.discarded = NOBODY
        game._lay_tables = [None] * n_players
        game._plays = [None] * n_players
        return game

    def copy(self) -> Self:
        """An independent copy: every list of the state copied, no generic deep copy."""
        game = self._copy_shared()
        game.no_redraw = self.no_redraw
        game.tiles = [path[:] for path in self.tiles]
        game.col_cards = [[col[:] for col in cols] for cols in self.col_cards]
        game.last = [row[:] for row in self.last]
        game.dirs = [row[:] for row in self.dirs]
        game.pos = [row[:] for row in self.pos]
        game.big = self.big[:]
        game.smalls_out = self.smalls_out[:]
        game.wishes = self.wishes[:]
        game.points = self.points[:]
        game.goal = self.goal
        game.discarded = self.discarded
        game._lay_tables = self._lay_tables[:]  # tuples, shared
        game._plays = [None if plays is None else plays[:] for plays in self._plays]
        game._legal = None if self.phase == PLAY_PHASE else self._legal  # a play list changes
        return game

    def _reset_caches(self) -> None:
        self._legal = None
        self._lay_tables = [None] * self.n_players
        self._plays = [None] * self.n_players

    # -- questions ------------------------------------------------------------------------------
    def movable(self, player: int) -> list[int]:
        """Colours of the player's figures that may step forward (on a path, not at its end)."""
        return [c for c, stone in enumerate(self.pos[player]) if 0 < stone < END_STONE]

    def _list_legal(self) -> tuple[str, ...] | list[str]:
        phase, p = self.phase, self.current
        if phase == PLAY_PHASE:
            plays = self._plays[p]
            if plays is None:
                plays = self._plays[p] = self._list_plays(p)
            return plays
        if phase == DRAW_PHASE:
            p0, p1, p2, p3, p4 = self.piles
            mask = (
                (1 if p0 else 0) | (2 if p1 else 0) | (4 if p2 else 0) | (8 if p3 else 0)
                | (16 if p4 else 0)
            )  # fmt: skip
            if self.no_redraw and self.discarded != NOBODY:
                mask &= ~(1 << self.discarded)
            return _DRAW_LEGAL[mask]
        if phase == CLOVER_PHASE:
            out = [_S_CLOVER[c] for c in self.movable(p)]
            out.append("clover pass")
            out.sort()
            return out
        return ()

    def _list_plays(self, p: int) -> list[str]:
        """The player's play-phase legal list, sorted as plain strings by construction: a hand's
        distinct cards in string order give every ``discard`` (before any ``play``), then each
        card's sorted lays (a card that is a prefix of another, b1 before b10, sorts first
        because a space sorts before a digit). It is kept per player (``_plays``): their draws
        and discards add and take out a card's actions, their lays and clovers drop it."""
        table = self._lay_tables[p]
        if table is None:
            table = self._lay_tables[p] = self._lay_table(p)
        out: list[str] = []  # every discard, then the lays
        lays: list[str] = []
        previous = None
        for card in sorted(self.hands[p]):  # cheaper than sorted(set(...)) for a hand
            if card != previous:
                previous = card
                out.append(_S_DISCARD[card])
                lays += table[_LAY_INDEX[card]]
        out += lays
        return out

    def _lay_table(self, p: int) -> tuple[tuple[str, ...], ...]:
        """Every card's lays for the player now, sorted (index: ``_LAY_INDEX``): what may be
        laid. It changes only with the player's own lays and clovers, so it is kept per player
        (``_lay_tables``); a lay that moves no figure onto its end stone changes only the
        path laid on (``_relaid``), a clover step that does not reach it nothing."""
        cols, dirs, last, pos = self.col_cards[p], self.dirs[p], self.last[p], self.pos[p]
        free = (2 if self.big[p] == NOBODY else 0) | (self.smalls_out[p] < SMALL_FIGURES)
        table: tuple[tuple[str, ...], ...] = ()
        for ci, stone in enumerate(pos):
            if not cols[ci]:
                table += _START_LAYS[ci][free]
            elif stone != END_STONE:
                table += _STEP_LAYS[ci][dirs[ci]][last[ci]]
            else:
                movable = 0
                for t, other in enumerate(pos):
                    if 0 < other < END_STONE:
                        movable |= 1 << t
                table += _end_lays(ci, dirs[ci], last[ci], movable)
        return table

    def _relaid(self, p: int, kind: int, ci: int, extra: Any) -> None:
        """After the player's lay on path ``ci`` (not a START): their kept lay table with only
        that path's lays made again, or dropped when a figure reached its end stone (which
        changes the redirects of every path at its end)."""
        table = self._lay_tables[p]
        pos = self.pos[p]
        moved = ci if kind == PLAY else extra
        if moved != NOBODY and pos[moved] == END_STONE:
            self._lay_tables[p] = None
            return
        d, last = self.dirs[p][ci], self.last[p][ci]  # the path is not empty: not a START
        if pos[ci] != END_STONE:
            lays = _STEP_LAYS[ci][d][last]
        else:
            movable = 0
            for t, other in enumerate(pos):
                if 0 < other < END_STONE:
                    movable |= 1 << t
            lays = _end_lays(ci, d, last, movable)
        i = ci * len(_VALUES)
        self._lay_tables[p] = table[:i] + lays + table[i + len(_VALUES) :]

    # -- actions --------------------------------------------------------------------------------
    def apply(self, action: str, player: int | None = None) -> None:
        """One action, through ``apply_all``: the rules are written once."""
        self.apply_all((action,), player)

    def apply_all(self, actions: Iterable[str], player: int | None = None) -> None:
        # The one implementation of every action, as a loop: a replay applies hundreds (and
        # play_out its bots' choices), and one call for all of them spares a call per action.
        # The lists it reads are taken once (an action changes what they hold, never which
        # list it is, nor the deck's length); the cached legal list is dropped after each
        # action, as a bot fed to the loop asks for it in between. The two commonest actions
        # (a discard, a draw) are done here, the play list of the player kept up to date in
        # place (a drawn card's actions put in here, a discarded card's taken out by
        # _drop_card); each phase looks the action up among the ones it takes (_refused says
        # why not). A phase test jumps over its branch, and CPython 3.11 compares integers
        # fast only before a short jump: so the play phase's branch leaves lays and the
        # mending of a discard to calls, and the draw phase comes last, after one call.
        hands = self.hands
        piles = self.piles
        deck = self.deck
        deck_end = len(deck)
        kept_plays = self._plays
        next_player = _NEXT_PLAYER[self.n_players]
        for action in actions:
            phase = self.phase
            p = self.current
            if player is not None:
                if phase == FINISHED:
                    raise IllegalAction("game_over")
                if player != p:
                    raise IllegalAction("not_your_turn", to_move=p, player=player)
            if phase == PLAY_PHASE:
                try:
                    kind, card, ci, value, extra = _PLAYS[action]
                except (KeyError, TypeError):
                    raise _refused(action, phase) from None
                if kind != DISCARD:
                    self._lay(p, kind, card, ci, value, extra)
                else:
                    hand = hands[p]
                    try:
                        hand.remove(card)
                    except ValueError:
                        raise IllegalAction("card_not_in_hand", card=card) from None
                    plays = kept_plays[p]
                    if plays is not None and card not in hand:
                        self._drop_card(plays, p, action, extra)  # a discard's extra: lay index
                    piles[ci].append(card)
                    self.discarded = ci
                    self.phase = DRAW_PHASE
            elif phase != DRAW_PHASE:
                self._clover(p, action)
            else:
                try:
                    source = _DRAW_SOURCES[action]
                except (KeyError, TypeError):
                    raise _refused(action, phase) from None
                pos = self.deck_pos
                if source == NOBODY:
                    if pos >= deck_end:
                        raise IllegalAction("deck_empty")
                    card = deck[pos]
                    self.deck_pos = pos = pos + 1
                else:
                    pile = piles[source]
                    if not pile:
                        raise IllegalAction("pile_empty", colour=COLOUR_NAMES[COLOURS[source]])
                    if self.no_redraw and source == self.discarded:
                        raise IllegalAction("pile_own_discard", card=pile[-1])
                    card = pile.pop()
                hand = hands[p]
                plays = kept_plays[p]
                if plays is not None and card not in hand:
                    discard, index = _CARD_KEYS[card]
                    insort(plays, discard)
                    lays = self._lay_tables[p][index]
                    if lays:
                        i = bisect_left(plays, lays[0])
                        plays[i:i] = lays
                hand.append(card)
                if pos >= deck_end:
                    self.phase = FINISHED
                    self.end_reason = "deck"
                else:
                    self.current = next_player[p]
                    self.phase = PLAY_PHASE
                    self.discarded = NOBODY
            self.actions.append(action)
            self._legal = None

    def _drop_card(self, plays: list[str], p: int, discard: str, index: int) -> None:
        """Take a card's actions (its ``discard`` and its lays, at ``index`` in the lay table)
        out of the player's kept play list: its last copy left their hand. Out of the loop
        of ``apply_all``, which keeps the play phase's branch short."""
        plays.remove(discard)
        lays = self._lay_tables[p][index]
        if lays:
            i = bisect_left(plays, lays[0])
            del plays[i : i + len(lays)]

    def _lay(self, p: int, kind: int, card: str, ci: int, value: int, extra: Any) -> None:
        """Lay a card (START, PLAY or REDIRECT) and mend the player's kept lists: figures put
        on the start change every empty path's lays, other lays only their own path's."""
        self._play(p, kind, card, ci, value, extra)
        if kind == START:
            self._lay_tables[p] = self._plays[p] = None
        else:
            self._plays[p] = None
            if self._lay_tables[p] is not None:
                self._relaid(p, kind, ci, extra)

    def _clover(self, p: int, action: str) -> None:
        """Take the clover phase's action (a figure's extra step, or a pass); a finished game
        takes none."""
        if self.phase != CLOVER_PHASE:
            raise IllegalAction("game_over")
        try:
            target = _CLOVERS[action]
        except (KeyError, TypeError):
            raise _refused(action, CLOVER_PHASE) from None
        if target == NOBODY:
            self.phase = DRAW_PHASE
        elif 0 < self.pos[p][target] < END_STONE:
            self._move(p, target)
            if self.pos[p][target] == END_STONE:  # it changes the paths' redirects
                self._lay_tables[p] = self._plays[p] = None
            # else a step along the path changes none of the player's lays
        else:
            raise IllegalAction("figure_cannot_move", colour=COLOUR_NAMES[COLOURS[target]])

    def _play(self, p: int, kind: int, card: str, ci: int, value: int, extra: Any) -> None:
        """Lay ``card`` on the player's column ``ci`` (START, PLAY or REDIRECT), or raise."""
        hand = self.hands[p]
        if card not in hand:
            raise IllegalAction("card_not_in_hand", card=card)
        cards = self.col_cards[p][ci]
        if not cards:
            if kind != START:
                raise IllegalAction("figure_choice_needed", colour=COLOUR_NAMES[COLOURS[ci]])
            if extra and self.big[p] != NOBODY:
                raise IllegalAction("figure_not_on_start", size="big")
            if not extra and self.smalls_out[p] >= SMALL_FIGURES:
                raise IllegalAction("figure_not_on_start", size="small")
            hand.remove(card)
            if extra:
                self.big[p] = ci
            else:
                self.smalls_out[p] += 1
            cards.append(card)
            self.last[p][ci] = value
            self._move(p, ci)
            return
        if kind == START:
            raise IllegalAction(
                "figure_already_on_path", colour=COLOUR_NAMES[COLOURS[ci]], card=card
            )
        last = self.last[p]
        before, d = last[ci], self.dirs[p][ci]
        if d == ASCENDING and value < before:
            raise IllegalAction(
                "column_ascending", colour=COLOUR_NAMES[COLOURS[ci]], value=value, last=before
            )
        if d == DESCENDING and value > before:
            raise IllegalAction(
                "column_descending", colour=COLOUR_NAMES[COLOURS[ci]], value=value, last=before
            )
        pos = self.pos[p]
        at_end = pos[ci] == END_STONE
        if kind == PLAY:
            if at_end:
                raise IllegalAction("figure_at_end_choose", colour=COLOUR_NAMES[COLOURS[ci]])
        else:  # REDIRECT
            if not at_end:
                raise IllegalAction("figure_not_at_end", colour=COLOUR_NAMES[COLOURS[ci]])
            if extra != NOBODY and not 0 < pos[extra] < END_STONE:
                raise IllegalAction("figure_cannot_move", colour=COLOUR_NAMES[COLOURS[extra]])
        hand.remove(card)
        cards.append(card)
        if d == UNDECIDED and value != before:
            self.dirs[p][ci] = ASCENDING if value > before else DESCENDING
        last[ci] = value
        if kind == PLAY:
            self._move(p, ci)
        elif extra != NOBODY:
            self._move(p, extra)
        else:
            self.phase = DRAW_PHASE

    def _move(self, p: int, ci: int) -> None:
        """Move the player's figure on path ``ci`` one stone; apply the tile; set the phase."""
        pos = self.pos[p]
        stone = pos[ci] + 1
        pos[ci] = stone
        if stone == GOAL_FROM:
            self.goal += 1
            if self.goal >= GOAL_FIGURES_TO_END:
                self.phase = FINISHED
                self.end_reason = "goal"
                return
        self.phase = DRAW_PHASE
        tile = self.tiles[ci][stone]
        if tile is None:
            return
        if tile == WISH_TILE:
            self.wishes[p] += 1
            self.tiles[ci][stone] = None
        elif tile == CLOVER_TILE:
            for s in pos:
                if 0 < s < END_STONE:
                    self.phase = CLOVER_PHASE
                    return
        else:
            self.points[p] += _TILE_POINTS[tile]

    # -- scoring and views ----------------------------------------------------------------------
    def player_score(self, p: int) -> int:
        total = self.points[p] + wish_score(self.wishes[p])
        big = self.big[p]
        for ci, stone in enumerate(self.pos[p]):
            if stone:
                total += STONE_VALUES[stone] * (2 if ci == big else 1)
        return total

    def laid_cards(self) -> list[str]:
        cards: list[str] = []
        for cols in self.col_cards:
            for col in cols:
                cards += col
        return cards

    def view(self, player: int | None = None) -> dict[str, Any]:
        self.check_viewer(player)
        players = []
        for p in range(self.n_players):
            figures = {}
            for ci, colour in enumerate(COLOURS):
                if self.pos[p][ci]:
                    figures[colour] = {"stone": self.pos[p][ci], "big": self.big[p] == ci}
            players.append(
                {
                    "hand": sort_cards(self.hands[p]) if player in (None, p) else None,
                    "hand_count": len(self.hands[p]),
                    "columns": {
                        colour: list(self.col_cards[p][ci])
                        for ci, colour in enumerate(COLOURS)
                        if self.col_cards[p][ci]
                    },
                    "directions": {
                        colour: DIRECTION_NAMES[self.dirs[p][ci]]
                        for ci, colour in enumerate(COLOURS)
                        if self.col_cards[p][ci]
                    },
                    "figures": figures,
                    "on_start": {
                        "big": int(self.big[p] == NOBODY),
                        "small": SMALL_FIGURES - self.smalls_out[p],
                    },
                    "wishing_stones": self.wishes[p],
                    "tile_points": self.points[p],
                    "score": self.player_score(p),
                }
            )
        state: dict[str, Any] = {
            "phase": self.phase_name,
            "to_move": self.to_move,
            "options": dict(self.options),
            "players": players,
            "piles": {colour: list(self.piles[ci]) for ci, colour in enumerate(COLOURS)},
            "discarded_this_turn": (
                self.piles[self.discarded][-1] if self.discarded != NOBODY else None
            ),
            "deck_count": self.deck_count,
            "removed_count": len(self.removed),
            "tiles": {
                colour: {str(s): t for s, t in enumerate(self.tiles[ci]) if t is not None}
                for ci, colour in enumerate(COLOURS)
            },
            "goal_count": self.goal,
            "end_reason": self.end_reason,
        }
        if player is None:
            state["deck"] = self.deck[self.deck_pos :]
            state["removed"] = list(self.removed)
        else:
            state["viewer"] = player
        return state


_STONE_KEYS = {str(stone): stone for stone in range(1, END_STONE + 1)}
_SORTED_TILES = sorted(TILES)


def _read_tiles(tiles: Any) -> list[list[Any]]:
    """The record's tiles as a per-colour list indexed by stone; RecordError if not valid."""
    board = _read_valid_tiles(tiles)
    return board if board is not None else _read_tiles_checked(tiles)


def _read_valid_tiles(tiles: Any) -> list[list[Any]] | None:
    """The common case at the cost of one sort: the five paths, stones 1..9 each with a tile
    on its end stone, and the 25 tiles of the game; None for anything else."""
    if type(tiles) is not dict or len(tiles) != len(COLOURS):
        return None
    board: list[list[Any]] = []
    laid: list[Any] = []
    try:
        for colour in COLOURS:
            stones = tiles[colour]
            path = [None] * (END_STONE + 1)
            for stone_key, tile in stones.items():
                path[_STONE_KEYS[stone_key]] = tile
            if path[END_STONE] is None:
                return None
            board.append(path)
            laid += stones.values()
        return board if sorted(laid) == _SORTED_TILES else None
    except (KeyError, AttributeError, TypeError):
        return None


def _read_tiles_checked(tiles: Any) -> list[list[Any]]:
    """``_read_tiles`` for a setup that is not plainly valid: which rule it breaks."""
    if not isinstance(tiles, dict) or sorted(tiles) != sorted(COLOURS):
        raise RecordError("tiles must name the five paths g, y, r, p, b")
    board: list[list[Any]] = [[None] * (END_STONE + 1) for _ in COLOURS]
    counts: Counter[str] = Counter()
    for colour, stones in tiles.items():
        if not isinstance(stones, dict):
            raise RecordError(f"tiles of path {colour} must map stones to tiles")
        for stone_key, tile in stones.items():
            if not (isinstance(stone_key, str) and stone_key.isdigit()):
                raise RecordError(f"path {colour}: '{stone_key}' is not a stone number")
            stone = int(stone_key)
            if not 1 <= stone <= END_STONE:
                raise RecordError(f"path {colour}: stones are numbered 1..9, not {stone}")
            if tile not in (WISH_TILE, CLOVER_TILE, "1", "2", "3"):
                raise RecordError(f"path {colour}: '{tile}' is not a tile")
            board[COLOUR_INDEX[colour]][stone] = tile
            counts[tile] += 1
        if str(END_STONE) not in stones:
            raise RecordError(f"path {colour} has no tile on its end stone")
    if counts != Counter(TILES):
        raise RecordError("the 25 tiles are 9 wish, 9 clover and point tiles 1, 1, 2, 2, 2, 3, 3")
    return board


def _refused(action: Any, phase: int) -> IllegalAction:
    """Why the phase does not take an action: not one of the game's, or not now."""
    try:
        known = action in ACTIONS
    except TypeError:
        known = False
    return IllegalAction(_NOT_NOW[phase]) if known else _malformed(action)


def _malformed(action: Any) -> MalformedAction:
    if not isinstance(action, str) or not action.strip():
        return MalformedAction("empty_action")
    for token in action.split():
        looks_like_card = token[:1] in COLOURS and token[1:].isdigit()
        if looks_like_card and token not in _CARD_CV:
            return MalformedAction("unknown_card", card=token)
    return MalformedAction("unknown_action", action=action)


__all__ = ["ACTIONS", "BoardGame", "card_sort_key", "wish_score"]
