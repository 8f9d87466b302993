"""Keltis: Das Kartenspiel (rules.md §2), as a state machine over records.md actions.

Like the board game, the state is kept in flat lists indexed by player and colour, actions are
parsed by a table look-up and ``legal`` is cached, so that random games and replays stay cheap
(see bench/engine.py).

Turn shape: ``play`` phase (lay one card, discard one, or ``wish`` two), then ``draw`` phase
(one draw, two after a wish), then the next player. The fifth closed row or the last deck card
starts the ``end`` phase: each player, from the next one round to the one who ended the game,
may lay up to two more cards on existing rows or the point row, or say ``done``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, ClassVar, Self

from .base import DealtGame
from .cards import (
    ASCENDING,
    CARDS,
    CLOSING,
    COLOUR_INDEX,
    COLOUR_NAMES,
    COLOURS,
    DIRECTION_NAMES,
    NUMBER,
    POINT,
    UNDECIDED,
    direction_after,
    number_cards,
    order_error,
    sort_cards,
)
from .errors import IllegalAction, MalformedAction

#: rows with a closing card at their end (all players) that end the game
CLOSED_ROWS_TO_END = 5
#: score of a colour row by its number of cards (index), capped at 9 cards; no row scores 0
ROW_SCORES = (0, -4, -3, -2, 1, 2, 3, 6, 7, 10)
#: score by the number of wishing-stone cards held, capped at 5
WISH_SCORES = (-4, -1, 0, 4, 6, 10)
WISH_VALUES = range(1, 10)
END_PHASE_LAYS = 2

PLAY_PHASE, DRAW_PHASE, END_PHASE, FINISHED = 0, 1, 2, 3
PHASE_NAMES = ("play", "draw", "end", "finished")

#: the six discard piles: the five colours, then the point pile (index 5, written ``P``)
PILE_KEYS = (*COLOURS, "P")
POINT_PILE = 5
DECK = -1  # 'draw deck' takes from no pile
POINT_ROW = -1  # 'play P7' lays into the point row, not a colour row

# Parsed actions: (kind, card, card2, target, canonical spelling).
# target: colour index of the row (LAY/LAY_ON), POINT_ROW, or the pile index (DRAW, DECK).
LAY, LAY_ON, DISCARD, WISH, DRAW, DONE = range(6)

_COPIES = {v: (2 if 3 <= v <= 7 else 1) for v in range(11)}
_HAND_CARDS = (
    *sorted(set(number_cards(_COPIES)), key=lambda c: CARDS[c].sort_key),
    *(f"{c}x" for c in COLOURS),
    *(f"P{v}" for v in range(11)),
)
#: card -> (kind, colour index or POINT_PILE, value or -1): the pile a card is discarded onto
_INFO: dict[str, tuple[str, int, int]] = {}
for _card in _HAND_CARDS:
    _i = CARDS[_card]
    _INFO[_card] = (
        _i.kind,
        COLOUR_INDEX[_i.colour] if _i.colour else POINT_PILE,
        -1 if _i.value is None else _i.value,
    )
_KEY = {card: CARDS[card].sort_key for card in _HAND_CARDS}


def _wish_spelling(a: str, b: str) -> str:
    """``wish A B`` with A before B in the canonical order (g, y, r, p, b, P; by value)."""
    if _KEY[b] < _KEY[a]:
        a, b = b, a
    return f"wish {a} {b}"


def _action_table() -> dict[str, tuple[int, str, str, int, str]]:
    """Every canonically spelled action that can ever be legal, parsed."""
    table: dict[str, tuple[int, str, str, int, str]] = {}

    def add(text: str, kind: int, card: str = "", card2: str = "", target: int = DECK) -> None:
        table[text] = (kind, card, card2, target, text)

    for card, (kind, ci, _) in _INFO.items():
        add(f"discard {card}", DISCARD, card, target=ci)
        add(f"play {card}", LAY, card, target=POINT_ROW if kind == POINT else ci)
        if kind == POINT:
            for ri, colour in enumerate(COLOURS):
                add(f"play {card} {colour}", LAY_ON, card, target=ri)
    valued = [c for c in _HAND_CARDS if _INFO[c][0] != CLOSING and _INFO[c][2] in WISH_VALUES]
    for i, a in enumerate(valued):
        for b in valued[i:]:
            if _INFO[a][2] == _INFO[b][2]:
                add(_wish_spelling(a, b), WISH, a, b)
    add("draw deck", DRAW)
    for pi, key in enumerate(PILE_KEYS):
        add(f"draw {key}", DRAW, target=pi)
    add("done", DONE)
    return table


ACTIONS = _action_table()
_S_PLAY = {card: f"play {card}" for card in _HAND_CARDS}
_S_DISCARD = {card: f"discard {card}" for card in _HAND_CARDS}
_S_PLAY_ON = {
    card: tuple(f"play {card} {colour}" for colour in COLOURS)
    for card in _HAND_CARDS
    if _INFO[card][0] == POINT
}
_S_WISH = {(t[1], t[2]): text for text, t in ACTIONS.items() if t[0] == WISH}
_S_DRAW = tuple(f"draw {key}" for key in PILE_KEYS)
#: the draw phase's legal list for each set of drawable piles (bit ``pi`` set: pile ``pi``)
_DRAW_LEGAL = tuple(
    tuple(sorted(["draw deck", *(_S_DRAW[pi] for pi in range(6) if mask >> pi & 1)]))
    for mask in range(64)
)
#: ``wish A B`` in its canonical spelling for (A, B) in either order
_S_WISH_EITHER = {**{(b, a): text for (a, b), text in _S_WISH.items()}, **_S_WISH}
#: the value a card gives to a wish (1..9), or 0 for a card that cannot be wished with
_WISH_VALUE = {
    card: value if kind != CLOSING and value in WISH_VALUES else 0
    for card, (kind, _, value) in _INFO.items()
}
#: card -> (kind, colour index or POINT_PILE, value or -1, its discard, its play, its wish value)
_CARD_DATA = {
    card: (kind, ci, value, _S_DISCARD[card], _S_PLAY[card], _WISH_VALUE[card])
    for card, (kind, ci, value) in _INFO.items()
}
#: a point card's lays, sorted, by the rows it may go onto (bit ``ri`` set: colour row ``ri``)
_POINT_OPTIONS = {
    card: tuple(
        tuple(sorted([_S_PLAY[card], *(on[ri] for ri in range(5) if mask >> ri & 1)]))
        for mask in range(32)
    )
    for card, on in _S_PLAY_ON.items()
}


_CARD_LIKE = re.compile(r"[gyrpbPW](\d+|x)")
_ROW_ORDER_ERRORS = {"column_ascending": "row_ascending", "column_descending": "row_descending"}


def row_score(cards: int) -> int:
    return ROW_SCORES[min(cards, len(ROW_SCORES) - 1)]


def wish_score(stones: int) -> int:
    return WISH_SCORES[min(stones, len(WISH_SCORES) - 1)]


def pile_name(pile: int) -> str:
    return "point" if pile == POINT_PILE else COLOUR_NAMES[COLOURS[pile]]


class CardGame(DealtGame):
    """One game of Keltis: Das Kartenspiel from its setup; ``actions`` holds what was applied."""

    name = "keltis-cards"
    PHASE_NAMES = PHASE_NAMES
    FINISHED_PHASE = FINISHED
    PILE_COUNT = len(PILE_KEYS)
    OPTIONS: ClassVar[dict[str, bool]] = {"closing_may_open_row": False}
    ALL_CARDS = (
        *number_cards(_COPIES),
        *(f"{c}x" for c in COLOURS for _ in range(2)),
        *(f"P{v}" for v in range(11)),
    )

    __slots__ = (
        "_legal", "actions", "blocked", "closed", "closed_rows", "closing_open",
        "current", "deck", "deck_pos", "dirs", "draws_left", "end_laid", "end_left", "end_reason",
        "ender", "free", "hands", "last", "n_players", "options", "phase", "piles", "point_rows",
        "removed", "rows", "stones",
    )  # fmt: skip

    # -- setup ----------------------------------------------------------------------------------
    @classmethod
    def _from_setup(
        cls, n_players: int, setup: dict[str, Any], options: dict[str, bool], dealt: bool = False
    ) -> Self:
        game = cls._dealt(n_players, setup, options, dealt)
        game.closing_open = options["closing_may_open_row"]
        game.rows = [[[] for _ in COLOURS] for _ in range(n_players)]
        game.last = [[-1] * 5 for _ in range(n_players)]
        game.dirs = [[UNDECIDED] * 5 for _ in range(n_players)]
        game.closed = [[0] * 5 for _ in range(n_players)]
        game.point_rows = [[] for _ in range(n_players)]
        game.free = [v in WISH_VALUES for v in range(11)]
        game.stones = [[] for _ in range(n_players)]
        game.closed_rows = 0
        game.draws_left = 0
        game.blocked = 0
        game.end_laid = 0
        game.end_left = 0
        game.ender = None
        return game

    def copy(self) -> Self:
        """An independent copy: every list of the state copied, no generic deep copy."""
        game = self._copy_shared()
        game.closing_open = self.closing_open
        game.rows = [[row[:] for row in rows] for rows in self.rows]
        game.last = [row[:] for row in self.last]
        game.dirs = [row[:] for row in self.dirs]
        game.closed = [row[:] for row in self.closed]
        game.point_rows = [row[:] for row in self.point_rows]
        game.free = self.free[:]
        game.stones = [row[:] for row in self.stones]
        game.closed_rows = self.closed_rows
        game.draws_left = self.draws_left
        game.blocked = self.blocked
        game.end_laid = self.end_laid
        game.end_left = self.end_left
        game.ender = self.ender
        game._legal = self._legal
        return game

    # -- questions ------------------------------------------------------------------------------
    def _list_legal(self) -> tuple[str, ...] | list[str]:
        """Sorted as plain strings by construction in the play phase: every ``discard``, then
        every ``play`` (a hand's distinct cards in string order, each with its sorted lays; a
        card that is a prefix of another, P1 before P10, sorts first because a space sorts
        before a digit), then the sorted ``wish`` actions."""
        phase = self.phase
        if phase == PLAY_PHASE:
            p = self.current
            hand = self.hands[p]
            out: list[str] = []  # every discard, then the lays, then the wishes
            lays: list[str] = []
            rows, last, dirs, closed = self.rows[p], self.last[p], self.dirs[p], self.closed[p]
            free = self.free  # free[0] is False: 0 stands for a card no wish can take
            by_value: dict[int, list[str]] = {}
            previous = None
            twice = False  # some card held twice: ``wish A A`` may be legal
            for card in sorted(hand):  # cheaper than sorted(set(...)) for a hand
                if card == previous:
                    twice = True
                    continue
                previous = card
                kind, ci, value, discard, play, wish_value = _CARD_DATA[card]
                out.append(discard)
                if kind == NUMBER:
                    if not rows[ci]:
                        lays.append(play)
                    elif not closed[ci]:
                        d = dirs[ci]
                        if not d or (value >= last[ci] if d == ASCENDING else value <= last[ci]):
                            lays.append(play)
                elif kind == CLOSING:
                    if (closed[ci] < 2) if rows[ci] else self.closing_open:
                        lays.append(play)
                elif value in last:  # -1 for no row and for a row ended by a closing card
                    lays += _POINT_OPTIONS[card][
                        (last[0] == value)
                        | (last[1] == value) << 1
                        | (last[2] == value) << 2
                        | (last[3] == value) << 3
                        | (last[4] == value) << 4
                    ]
                else:
                    lays.append(play)
                if free[wish_value]:
                    same = by_value.get(wish_value)
                    if same is None:
                        by_value[wish_value] = [card]
                    else:
                        same.append(card)
            out += lays
            if by_value:
                wishes: list[str] = []
                for same in by_value.values():
                    if twice:
                        wishes += [_S_WISH_EITHER[a, a] for a in same if hand.count(a) > 1]
                    if len(same) > 1:
                        for i, a in enumerate(same):
                            for b in same[i + 1 :]:
                                wishes.append(_S_WISH_EITHER[a, b])
                if wishes:
                    wishes.sort()
                    out += wishes
            return out
        if phase == DRAW_PHASE:
            p0, p1, p2, p3, p4, p5 = self.piles
            mask = (
                (1 if p0 else 0) | (2 if p1 else 0) | (4 if p2 else 0) | (8 if p3 else 0)
                | (16 if p4 else 0) | (32 if p5 else 0)
            )  # fmt: skip
            return _DRAW_LEGAL[mask & ~self.blocked]
        if phase == END_PHASE:
            out = []
            self._lays(self.current, True, out)
            out.append("done")
            out.sort()
            return out
        return ()

    def _lays(self, p: int, end: bool, out: list[str]) -> None:
        """Append every legal lay of player ``p`` (``end``: only onto existing rows)."""
        rows, last, dirs, closed = self.rows[p], self.last[p], self.dirs[p], self.closed[p]
        for card in set(self.hands[p]):
            kind, ci, value = _INFO[card]
            if kind == NUMBER:
                if not rows[ci]:
                    if not end:
                        out.append(_S_PLAY[card])
                elif not closed[ci] and order_error(dirs[ci], last[ci], value) is None:
                    out.append(_S_PLAY[card])
            elif kind == CLOSING:
                if (closed[ci] < 2) if rows[ci] else (self.closing_open and not end):
                    out.append(_S_PLAY[card])
            else:
                out.append(_S_PLAY[card])
                if value in last:  # last is -1 for no row and for a row ended by a closing card
                    on = _S_PLAY_ON[card]
                    out.extend(on[ri] for ri in range(5) if last[ri] == value)

    def can_lay(self, p: int) -> bool:
        """Whether player ``p`` holds a card they may lay in the end phase."""
        out: list[str] = []
        self._lays(p, True, out)
        return bool(out)

    # -- actions --------------------------------------------------------------------------------
    def apply(self, action: str, player: int | None = None) -> None:
        """One action, through ``apply_all``: the rules are written once."""
        self.apply_all((action,), player)

    def apply_all(self, actions: Iterable[str], player: int | None = None) -> None:
        # The one implementation of every action, as a loop: a replay applies hundreds (and
        # play_out its bots' choices), and one call for all of them spares a call per action.
        # The lists it reads are taken once (an action changes what they hold, never which
        # list it is); the cached legal list is dropped after each action, as a bot fed to
        # the loop asks for it in between. The commonest actions (a draw, a discard) are done
        # here without further calls.
        hands = self.hands
        piles = self.piles
        deck = self.deck
        for action in actions:
            phase = self.phase
            if phase == FINISHED:
                raise IllegalAction("game_over")
            p = self.current
            if player is not None and player != p:
                raise IllegalAction("not_your_turn", to_move=p, player=player)
            try:
                parsed = ACTIONS[action]
            except (KeyError, TypeError):
                parsed = _parse_other(action)
            kind = parsed[0]
            if phase == DRAW_PHASE:
                if kind != DRAW:
                    if self.draws_left > 1:
                        raise IllegalAction("must_draw_n", count=self.draws_left)
                    raise IllegalAction("must_draw")
                source = parsed[3]
                if source == DECK:
                    pos = self.deck_pos
                    card = deck[pos]  # the deck is never empty while a draw is owed
                    self.deck_pos = pos = pos + 1
                else:
                    pile = piles[source]
                    if not pile:
                        raise IllegalAction("pile_empty", colour=pile_name(source))
                    if self.blocked >> source & 1:
                        raise IllegalAction("pile_own_discard", card=pile[-1])
                    card = pile.pop()
                    pos = self.deck_pos
                hands[p].append(card)
                if pos >= len(deck):
                    self._start_end("deck")  # a second draw owed after a wish is skipped
                else:
                    left = self.draws_left - 1
                    self.draws_left = left
                    if not left:
                        p += 1
                        self.current = 0 if p == self.n_players else p
                        self.phase = PLAY_PHASE
                        self.blocked = 0
            elif phase == PLAY_PHASE:
                if kind == DISCARD:
                    card = parsed[1]
                    try:
                        hands[p].remove(card)
                    except ValueError:
                        raise IllegalAction("card_not_in_hand", card=card) from None
                    pile = parsed[3]
                    piles[pile].append(card)
                    self.blocked = 1 << pile
                    self.phase = DRAW_PHASE
                    self.draws_left = 1
                elif kind == WISH:
                    self._wish(parsed[1], parsed[2])
                elif kind <= LAY_ON:  # LAY or LAY_ON
                    self._lay(parsed[1], parsed[3], False)
                    if self.closed_rows >= CLOSED_ROWS_TO_END:
                        self._start_end("closing")
                    else:
                        self.phase = DRAW_PHASE
                        self.draws_left = 1
                elif kind == DRAW:
                    raise IllegalAction("must_play")
                else:
                    raise IllegalAction("no_end_phase")
            else:
                if kind <= LAY_ON:  # LAY or LAY_ON
                    self._lay(parsed[1], parsed[3], True)
                    self.end_laid += 1
                    if self.end_laid >= END_PHASE_LAYS or not self.can_lay(p):
                        self._end_advance()
                elif kind == DONE:
                    self._end_advance()
                elif kind == DISCARD:
                    raise IllegalAction("end_phase_no_discard")
                elif kind == WISH:
                    raise IllegalAction("end_phase_no_wish")
                else:
                    raise IllegalAction("must_lay_or_done")
            self.actions.append(parsed[4])
            self._legal = None

    def _wish(self, a: str, b: str) -> None:
        hand = self.hands[self.current]
        value = _INFO[a][2]
        if not self.free[value]:
            raise IllegalAction("wish_taken", value=value)
        if a == b:
            count = hand.count(a)
            if count < 2:
                if count:
                    raise IllegalAction("wish_same_card", card=a)
                raise IllegalAction("card_not_in_hand", card=a)
        elif a not in hand:
            if b not in hand:
                raise IllegalAction("cards_not_in_hand", card=a, card2=b)
            raise IllegalAction("card_not_in_hand", card=a)
        elif b not in hand:
            raise IllegalAction("card_not_in_hand", card=b)
        hand.remove(a)
        hand.remove(b)
        pa, pb = _INFO[a][1], _INFO[b][1]
        self.piles[pa].append(a)
        self.piles[pb].append(b)
        self.blocked = 1 << pa | 1 << pb
        self.free[value] = False
        self.stones[self.current].append(f"W{value}")
        self.phase = DRAW_PHASE
        self.draws_left = 2

    def _lay(self, card: str, target: int, end: bool) -> None:
        """Lay ``card`` into the current player's row ``target`` (or point row); check first."""
        p = self.current
        hand = self.hands[p]
        if card not in hand:
            raise IllegalAction("card_not_in_hand", card=card)
        if target == POINT_ROW:
            hand.remove(card)
            self.point_rows[p].append(card)
            return
        kind, _, value = _INFO[card]
        row = self.rows[p][target]
        closed = self.closed[p][target]
        colour = COLOUR_NAMES[COLOURS[target]]
        if not row:
            if end:
                raise IllegalAction("end_phase_new_row", colour=colour)
            if kind == POINT or (kind == CLOSING and not self.closing_open):
                raise IllegalAction("row_not_started", colour=colour, card=card)
        elif closed:
            if closed > 1:
                raise IllegalAction("row_closed", colour=colour)
            if kind != CLOSING:
                raise IllegalAction("row_after_closing", colour=colour)
        if kind == CLOSING:
            hand.remove(card)
            row.append(card)
            self.closed[p][target] = closed + 1
            self.last[p][target] = -1
            if not closed:
                self.closed_rows += 1
            return
        if row:
            last = self.last[p][target]
            if kind == POINT:
                if value != last:
                    raise IllegalAction("point_no_match", card=card, colour=colour, value=value)
            else:
                error = order_error(self.dirs[p][target], last, value)
                if error is not None:
                    raise IllegalAction(
                        _ROW_ORDER_ERRORS[error], colour=colour, value=value, last=last
                    )
                self.dirs[p][target] = direction_after(self.dirs[p][target], last, value)
        hand.remove(card)
        row.append(card)
        self.last[p][target] = value

    def _start_end(self, reason: str) -> None:
        """The current player ended the game: the last lays start with the next player."""
        self.end_reason = reason
        self.ender = self.current
        self.phase = END_PHASE
        self.draws_left = 0
        self.blocked = 0
        self.end_left = self.n_players
        self._end_advance()

    def _end_advance(self) -> None:
        """Ask the next player who can lay (round to the one who ended); else finish."""
        self.end_laid = 0
        while self.end_left > 0:
            self.end_left -= 1
            self.current = (self.current + 1) % self.n_players
            if self.can_lay(self.current):
                return
        self.phase = FINISHED

    # -- scoring and views ----------------------------------------------------------------------
    def player_score(self, p: int) -> int:
        total = len(self.point_rows[p]) + wish_score(len(self.stones[p]))
        for row in self.rows[p]:
            if row:
                total += row_score(len(row))
        return total

    def laid_cards(self) -> list[str]:
        cards: list[str] = []
        for rows in self.rows:
            for row in rows:
                cards += row
        for point_row in self.point_rows:
            cards += point_row
        return cards

    def view(self, player: int | None = None) -> dict[str, Any]:
        self.check_viewer(player)
        players = []
        for p in range(self.n_players):
            rows, closed = self.rows[p], self.closed[p]
            started = [(ci, colour) for ci, colour in enumerate(COLOURS) if rows[ci]]
            players.append(
                {
                    "hand": sort_cards(self.hands[p]) if player in (None, p) else None,
                    "hand_count": len(self.hands[p]),
                    "rows": {colour: list(rows[ci]) for ci, colour in started},
                    "directions": {
                        colour: DIRECTION_NAMES[self.dirs[p][ci]] for ci, colour in started
                    },
                    # closed: a closing card ends the row (only the second may follow);
                    # sealed: both closing cards lie there, nothing more may follow
                    "closed": {colour: closed[ci] > 0 for ci, colour in started},
                    "sealed": {colour: closed[ci] > 1 for ci, colour in started},
                    "point_row": list(self.point_rows[p]),
                    "wishing_stones": sorted(self.stones[p]),
                    "score": self.player_score(p),
                }
            )
        state: dict[str, Any] = {
            "phase": self.phase_name,
            "to_move": self.to_move,
            "options": dict(self.options),
            "players": players,
            "wishing_stones": [f"W{v}" for v in WISH_VALUES if self.free[v]],
            "piles": {key: list(self.piles[pi]) for pi, key in enumerate(PILE_KEYS)},
            "discarded_this_turn": [
                key for pi, key in enumerate(PILE_KEYS) if self.blocked >> pi & 1
            ],
            "draws_left": self.draws_left,
            "deck_count": self.deck_count,
            "removed_count": len(self.removed),
            "closed_rows": self.closed_rows,
            "end_reason": self.end_reason,
            "ended_by": self.ender,
            "end_phase_laid": self.end_laid if self.phase == END_PHASE else None,
        }
        if player is None:
            state["deck"] = self.deck[self.deck_pos :]
            state["removed"] = list(self.removed)
        else:
            state["viewer"] = player
        return state


def _parse_other(action: Any) -> tuple[int, str, str, int, str]:
    """An action missing from the table: a ``wish`` in the other order, or why it is wrong."""
    if not isinstance(action, str) or not action.strip():
        raise MalformedAction("empty_action")
    tokens = action.split(" ")
    for token in tokens[1:]:
        if token not in _INFO and _CARD_LIKE.fullmatch(token):
            raise MalformedAction("unknown_card", card=token)
    if tokens[0] == "wish" and len(tokens) == 3 and all(t in _INFO for t in tokens[1:]):
        a, b = tokens[1], tokens[2]
        for card in (a, b):
            if _INFO[card][0] == CLOSING:
                raise IllegalAction("wish_no_value", card=card)
        if _INFO[a][2] != _INFO[b][2]:
            raise IllegalAction("wish_values_differ")
        if _INFO[a][2] not in WISH_VALUES:
            raise IllegalAction("wish_no_stone", value=_INFO[a][2])
        parsed = ACTIONS.get(f"wish {b} {a}")
        if parsed is not None:
            return parsed
    raise MalformedAction("unknown_action", action=action)


__all__ = ["ACTIONS", "CardGame", "row_score", "wish_score"]
