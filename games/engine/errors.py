"""Errors the engine reports, as message ids with parameters.

The site words a message in the player's language from ``code`` and ``params``; ``str(error)``
gives the English wording used by the command line and in logs.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # malformed input
    "empty_action": "The action is empty.",
    "unknown_action": "'{action}' is not an action of this game.",
    "unknown_card": "'{card}' is not a card of this game.",
    "bad_token": "'{token}' is not understood in '{action}'.",
    # whose turn, which phase
    "game_over": "The game is over: no more actions can be taken.",
    "not_your_turn": "It is player {to_move}'s turn, not player {player}'s.",
    "must_play": "You must first play a card (lay it or discard it).",
    "must_draw": "You have played your card: now draw one.",
    "must_draw_n": "Now draw a card ({count} still to draw).",
    "must_clover": "Decide first whether to use the clover (or pass).",
    "must_lay_or_done": "The game is ending: lay a card or say 'done'.",
    "no_clover_pending": "There is no clover to use now.",
    "no_end_phase": "'done' is only for the last lays at the end of the game.",
    # cards and hands
    "card_not_in_hand": "You do not hold {card}.",
    "cards_not_in_hand": "You do not hold both {card} and {card2}.",
    "pile_empty": "The {colour} discard pile is empty.",
    "pile_own_discard": "You cannot take back {card}, which you discarded this turn.",
    "deck_empty": "The deck is empty.",
    # the column / row order
    "column_ascending": (
        "Your {colour} column is ascending: {value} is lower than its last card {last}."
    ),
    "column_descending": (
        "Your {colour} column is descending: {value} is higher than its last card {last}."
    ),
    # figures (board game)
    "figure_choice_needed": (
        "This is your first {colour} card: say which figure starts the path (big or small)."
    ),
    "figure_not_on_start": "You have no {size} figure left on the start stone.",
    "figure_already_on_path": "Your {colour} figure is already on its path: play '{card}'.",
    "figure_at_end_choose": (
        "Your {colour} figure is on its end stone: move another figure ('>' and a colour) "
        "or none ('>-')."
    ),
    "figure_not_at_end": "Your {colour} figure is not on its end stone, so it moves itself.",
    "figure_cannot_move": "Your {colour} figure cannot move: it is not on a path or at its end.",
    # card game
    "row_closed": "Your {colour} row is closed: nothing more can be laid on it.",
    "row_after_closing": "After a closing card only the second {colour} closing card may follow.",
    "row_not_started": "You have no {colour} row yet: {card} cannot start one.",
    "point_no_match": (
        "{card} can only end your {colour} row when its last card has the value {value}."
    ),
    "wish_values_differ": "A wishing stone needs two cards of the same value.",
    "wish_no_value": "{card} has no value and cannot claim a wishing stone.",
    "wish_taken": "The wishing stone {value} has already been taken.",
    "wish_same_card": "You hold only one {card}.",
    "end_phase_no_more": "You have laid your two cards.",
    "end_phase_no_discard": "At the end of the game cards can only be laid, not discarded.",
    "end_phase_no_wish": "At the end of the game no wishing stone can be claimed.",
    "end_phase_new_row": (
        "At the end of the game cards go only onto your existing rows: you have no {colour} row."
    ),
    "row_ascending": "Your {colour} row is ascending: {value} is lower than its last card {last}.",
    "row_descending": (
        "Your {colour} row is descending: {value} is higher than its last card {last}."
    ),
    "wish_no_stone": "There is no wishing stone {value}: the stones are numbered 1 to 9.",
    # records
    "bad_record": "The record is not valid: {reason}",
    "bad_player": "There is no player {player} in this game (players are 0 to {last}).",
}


class EngineError(Exception):
    """Base of every engine error: a message id, its parameters and the English text."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(MESSAGES[code].format(**params))

    @property
    def message(self) -> str:
        return str(self)


class IllegalAction(EngineError):
    """An action that is well formed but not allowed now; the game is unchanged."""


class MalformedAction(IllegalAction):
    """An action the game's notation cannot read; the game is unchanged."""


class RecordError(EngineError):
    """A record (setup, options, players) that does not describe a valid game."""

    def __init__(self, reason: str) -> None:
        super().__init__("bad_record", reason=reason)
