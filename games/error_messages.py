"""Engine and service errors worded in the player's language.

The engine (pure, no Django) reports a message id and parameters; this module holds the site's
wording of every id, marked for translation, and words the parameters too: colours, card names
and figure sizes arrive from the engine as English words or card codes (``r7``). English stays
in the engine only for its command line and logs.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engine.cards import COLOUR_NAMES
from games.engine.errors import MESSAGES as ENGINE_MESSAGES

from .presenters import COLOUR_LABELS, card_name
from .services import ActionRejected, GameServiceError

#: the engine's message ids, worded for players (parameters by name, as the engine gives them)
ENGINE_TEXTS: dict[str, Promise] = {
    "empty_action": _("The action is empty."),
    "unknown_action": _("'%(action)s' is not an action of this game."),
    "unknown_card": _("'%(card)s' is not a card of this game."),
    "bad_token": _("'%(token)s' is not understood in '%(action)s'."),
    "game_over": _("The game is over: no more actions can be taken."),
    "not_your_turn": _("It is player %(to_move)s's turn, not player %(player)s's."),
    "must_play": _("You must first play a card (lay it or discard it)."),
    "must_draw": _("You have played your card: now draw one."),
    "must_draw_n": _("Now draw a card (%(count)s still to draw)."),
    "must_clover": _("Decide first whether to use the clover (or pass)."),
    "must_lay_or_done": _("The game is ending: lay a card or say that you are done."),
    "no_clover_pending": _("There is no clover to use now."),
    "no_end_phase": _("'Done' is only for the last lays at the end of the game."),
    "card_not_in_hand": _("You do not hold %(card)s."),
    "cards_not_in_hand": _("You do not hold both %(card)s and %(card2)s."),
    "pile_empty": _("The %(colour)s discard pile is empty."),
    "pile_own_discard": _("You cannot take back %(card)s, which you discarded this turn."),
    "deck_empty": _("The deck is empty."),
    "column_ascending": _(
        "Your %(colour)s column is ascending: %(value)s is lower than its last card %(last)s."
    ),
    "column_descending": _(
        "Your %(colour)s column is descending: %(value)s is higher than its last card %(last)s."
    ),
    "figure_choice_needed": _(
        "This is your first %(colour)s card: say which figure starts the path (big or small)."
    ),
    "figure_not_on_start": _("You have no %(size)s figure left on the start stone."),
    "figure_already_on_path": _("Your %(colour)s figure is already on its path: play %(card)s."),
    "figure_at_end_choose": _(
        "Your %(colour)s figure is on its end stone: move another figure or none."
    ),
    "figure_not_at_end": _("Your %(colour)s figure is not on its end stone, so it moves itself."),
    "figure_cannot_move": _(
        "Your %(colour)s figure cannot move: it is not on a path or at its end."
    ),
    "row_closed": _("Your %(colour)s row is closed: nothing more can be laid on it."),
    "row_after_closing": _(
        "After a closing card only the second %(colour)s closing card may follow."
    ),
    "row_not_started": _("You have no %(colour)s row yet: %(card)s cannot start one."),
    "point_no_match": _(
        "%(card)s can only end your %(colour)s row when its last card has the value %(value)s."
    ),
    "wish_values_differ": _("A wishing stone needs two cards of the same value."),
    "wish_no_value": _("%(card)s has no value and cannot claim a wishing stone."),
    "wish_taken": _("The wishing stone %(value)s has already been taken."),
    "wish_same_card": _("You hold only one %(card)s."),
    "end_phase_no_more": _("You have laid your two cards."),
    "end_phase_no_discard": _("At the end of the game cards can only be laid, not discarded."),
    "end_phase_no_wish": _("At the end of the game no wishing stone can be claimed."),
    "end_phase_new_row": _(
        "At the end of the game cards go only onto your existing rows: you have no %(colour)s "
        "row."
    ),
    "row_ascending": _(
        "Your %(colour)s row is ascending: %(value)s is lower than its last card %(last)s."
    ),
    "row_descending": _(
        "Your %(colour)s row is descending: %(value)s is higher than its last card %(last)s."
    ),
    "wish_no_stone": _("There is no wishing stone %(value)s: the stones are numbered 1 to 9."),
    "bad_record": _("The record is not valid: %(reason)s"),
    "bad_player": _("There is no player %(player)s in this game (players are 0 to %(last)s)."),
}

_COLOUR_KEYS = {name: key for key, name in COLOUR_NAMES.items()}
_SIZES = {"big": _("big"), "small": _("small")}
_CARD_PARAMS = ("card", "card2")


def _word_params(params: dict[str, Any]) -> dict[str, Any]:
    """The engine's parameters in the player's language (others pass through unchanged)."""
    worded = dict(params)
    colour = params.get("colour")
    if colour == "point":
        worded["colour"] = gettext("point")
    elif colour in _COLOUR_KEYS:
        worded["colour"] = str(COLOUR_LABELS[_COLOUR_KEYS[colour]])
    if params.get("size") in _SIZES:
        worded["size"] = str(_SIZES[params["size"]])
    for name in _CARD_PARAMS:
        if isinstance(params.get(name), str):
            worded[name] = card_name(params[name])
    return worded


def engine_error_text(code: str, params: dict[str, Any]) -> str:
    """An engine message in the active language; an id the site does not know (a newer
    engine) falls back to the engine's English text rather than failing the page."""
    text = ENGINE_TEXTS.get(code)
    if text is None:
        return ENGINE_MESSAGES.get(code, code).format(**params)
    return str(text) % _word_params(params)


def service_error_text(error: GameServiceError) -> str:
    """What a refused request says to the player, in the active language."""
    if isinstance(error, ActionRejected):
        return engine_error_text(error.engine_code, error.params)
    return str(error)
