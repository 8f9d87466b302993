"""What the game pages and emails draw, made from engine views: one module per thing drawn.

No database here and no HTML: selectors hand over engine views and seats, templates draw the
dataclasses made here. Every word a player reads goes through gettext.

From the lowest module up (each imports only those before it): ``cards`` (card names, chips,
piles, colours), ``board`` (the board SVG, seat styles, figures), ``actions`` (button labels
and groups), ``history`` (past-tense event texts, move lists), ``messages`` (the message after
a move, the phase line, results), ``clock`` (deadlines, banks, timeouts), ``table`` (players'
panels, piles), ``page`` (the game and history pages' contexts).

The names below are the ones used outside the package (views, emails, tests), kept here so
that ``presenters.X`` goes on working; new code may import from the submodule instead.
"""

from .actions import action_groups, action_label, short_label
from .board import PATH_COLOURS, SEAT_STYLES, board_svg
from .cards import BOARD, COLOUR_LABELS, card_name, chip, chips
from .clock import clock_info
from .history import event_lines, event_text
from .messages import end_reason_text, phase_text, result_message, results, tiles_won
from .page import game_context, history_context
from .table import table_view

__all__ = [
    "BOARD",
    "COLOUR_LABELS",
    "PATH_COLOURS",
    "SEAT_STYLES",
    "action_groups",
    "action_label",
    "board_svg",
    "card_name",
    "chip",
    "chips",
    "clock_info",
    "end_reason_text",
    "event_lines",
    "event_text",
    "game_context",
    "history_context",
    "phase_text",
    "result_message",
    "results",
    "short_label",
    "table_view",
    "tiles_won",
]
