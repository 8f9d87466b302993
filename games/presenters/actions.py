"""The legal actions as buttons: the label of each action and the groups they are shown in.

Imperative words ("Lay red 7 and move your red figure to stone 4"); the past tense of the
same actions is in ``history``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from games.engine.board_layouts import END_STONE
from games.engine.cards import CARDS, CLOSING, COLOURS, POINT, WISH, card_sort_key

from .board import stone_words
from .cards import BOARD, CardChip, card_name, chip, colour_label, pile_label, worded


def _(message: str) -> str:
    """``gettext``, its answer remembered per language as the card names are (``cards``): a
    turn's buttons take forty lookups or more in the catalogues (a turn email's links, the
    game page's buttons), the same few dozen messages every time."""
    return worded("text", message, gettext)


def _pile_top(view: dict[str, Any] | None, key: str) -> str | None:
    if not view:
        return None
    pile = view.get("piles", {}).get(key) or []
    return pile[-1] if pile else None


def _own_player(view: dict[str, Any] | None) -> dict[str, Any] | None:
    if not view or view.get("to_move") is None:
        return None
    return view["players"][view["to_move"]]


def action_label(kind: str, action: str, view: dict[str, Any] | None = None) -> str:
    """The words on the button for ``action``; ``view`` (of the player to move) adds detail:
    which stone a figure reaches, which card a pile offers."""
    tokens = action.split()
    if not tokens:
        return action
    verb, rest = tokens[0], tokens[1:]
    if verb == "draw" and rest:
        if rest[0] == "deck":
            return _("Draw from the deck")
        top = _pile_top(view, rest[0])
        if top:
            return _("Take %(card)s from %(pile)s") % {
                "card": card_name(top), "pile": pile_label(rest[0])
            }
        return _("Take the top card of %(pile)s") % {"pile": pile_label(rest[0])}
    if verb == "discard" and rest:
        return _("Discard %(card)s") % {"card": card_name(rest[0])}
    if kind == BOARD:
        return _board_label(verb, rest, view) or action
    return _card_label(verb, rest, view) or action


def _next_stone(view: dict[str, Any] | None, colour: str) -> str | None:
    """Where the mover's figure on path ``colour`` would step: "stone 4 (worth 1, clover)"."""
    player = _own_player(view)
    if player is None:
        return None
    figure = player.get("figures", {}).get(colour)
    if not figure or figure["stone"] >= END_STONE:
        return None
    return stone_words(view, colour, figure["stone"] + 1)


def _board_label(verb: str, rest: list[str], view: dict[str, Any] | None) -> str | None:
    if verb == "clover" and rest:
        if rest[0] == "pass":
            return _("Decline the clover")
        stone = _next_stone(view, rest[0])
        if stone:
            return _("Use the clover: move your %(colour)s figure to %(stone)s") % {
                "colour": colour_label(rest[0]), "stone": stone
            }
        return _("Use the clover: move your %(colour)s figure") % {"colour": colour_label(rest[0])}
    if verb != "play" or not rest or rest[0] not in CARDS:
        return None
    card, colour = rest[0], rest[0][0]
    params = {"card": card_name(card), "colour": colour_label(colour)}
    if len(rest) == 1:
        stone = _next_stone(view, colour)
        if stone:
            return _("Lay %(card)s and move your %(colour)s figure to %(stone)s") % {
                **params, "stone": stone
            }
        return _("Lay %(card)s and move your %(colour)s figure") % params
    extra = rest[1]
    if extra == "big":
        return _("Lay %(card)s and start the %(colour)s path with your big figure") % params
    if extra == "small":
        return _("Lay %(card)s and start the %(colour)s path with a small figure") % params
    if extra == ">-":
        return _("Lay %(card)s and move no figure") % params
    if extra.startswith(">") and extra[1:] in COLOURS:
        return _("Lay %(card)s and move your %(other)s figure instead") % {
            **params, "other": colour_label(extra[1:])
        }
    return None


def _card_label(verb: str, rest: list[str], view: dict[str, Any] | None) -> str | None:
    if verb == "done":
        return _("Done: lay no more cards")
    if verb == "wish" and len(rest) == 2:
        value = CARDS[rest[0]].value if rest[0] in CARDS else "?"
        return _("Claim wishing stone %(value)s with %(card)s + %(card2)s") % {
            "value": value, "card": card_name(rest[0]), "card2": card_name(rest[1])
        }
    if verb != "play" or not rest or rest[0] not in CARDS:
        return None
    card = rest[0]
    info = CARDS[card]
    if info.kind == POINT:
        if len(rest) == 2 and rest[1] in COLOURS:
            return _("Lay %(card)s at the end of your %(colour)s row") % {
                "card": card_name(card), "colour": colour_label(rest[1])
            }
        return _("Lay %(card)s in your point row") % {"card": card_name(card)}
    if info.kind == CLOSING:
        player = _own_player(view)
        if player and player.get("closed", {}).get(info.colour):
            return _("Seal your %(colour)s row with the second closing card") % {
                "colour": colour_label(info.colour)
            }
        return _("Close your %(colour)s row with %(card)s") % {
            "colour": colour_label(info.colour), "card": card_name(card)
        }
    player = _own_player(view)
    if player is not None and info.colour not in player.get("rows", {}):
        return _("Lay %(card)s and start your %(colour)s row") % {
            "card": card_name(card), "colour": colour_label(info.colour)
        }
    return _("Lay %(card)s in your %(colour)s row") % {
        "card": card_name(card), "colour": colour_label(info.colour)
    }


@dataclass(frozen=True)
class ActionChoice:
    action: str
    #: the whole meaning, standing alone (the button's accessible name and tooltip)
    label: str
    #: the words on the button, read under its group's title (the card): "Discard"
    short: str
    #: "lay", "discard", "draw" or "other": only for styling
    style: str
    #: board game: the stone the action moves a figure to ("r4"), lit up on the board when
    #: its card is chosen (play.js); "" when it moves none
    target: str = ""
    #: where the card goes on the table, lit up when it is chosen (play.js): the player's own
    #: row ("row:r", "row:points") or the wishing stone a claim takes ("wish:W5") in the card
    #: game, a discard pile ("pile:r") in both
    place: str = ""


def short_label(
    kind: str, action: str, view: dict[str, Any] | None = None, label: str | None = None
) -> str:
    """The button text under a card's group title; the full label for other actions
    (``label``, when the caller has already worded it)."""
    tokens = action.split()
    if len(tokens) < 2 or tokens[0] not in ("play", "discard") or tokens[1] not in CARDS:
        return label if label is not None else action_label(kind, action, view)
    if tokens[0] == "discard":
        return _("Discard")
    card, extra = tokens[1], tokens[2] if len(tokens) > 2 else None
    info = CARDS[card]
    if kind == BOARD:
        if extra == "big":
            return _("Big figure starts")
        if extra == "small":
            return _("Small figure starts")
        if extra == ">-":
            return _("Lay, move no figure")
        if extra and extra.startswith(">"):
            return _("Lay, move the %(colour)s figure") % {"colour": colour_label(extra[1:])}
        stone = _next_stone(view, card[0])
        if stone:
            return _("Lay: figure to %(stone)s") % {"stone": stone}
        return _("Lay")
    if info.kind == POINT:
        if extra is not None and extra in COLOURS:
            return _("Lay at the end of the %(colour)s row") % {"colour": colour_label(extra)}
        return _("Lay in the point row")
    if info.kind == CLOSING:
        player = _own_player(view)
        if player and player.get("closed", {}).get(info.colour):
            return _("Lay: seal the row")
        return _("Lay: close the row")
    player = _own_player(view)
    if player is not None and info.colour not in player.get("rows", {}):
        return _("Lay: start the row")
    return _("Lay")


@dataclass(frozen=True)
class ActionGroup:
    title: str
    card: CardChip | None
    choices: list[ActionChoice]


_ORDER_IN_GROUP = {"big": 0, "small": 1}


def _choice_rank(action: str) -> tuple[int, str]:
    tokens = action.split()
    if tokens[0] == "discard":
        return 9, action
    if len(tokens) == 2:
        return 2, action
    extra = tokens[2]
    if extra in _ORDER_IN_GROUP:
        return _ORDER_IN_GROUP[extra], action
    if extra == ">-":
        return 5, action
    return 3, action


def _style(action: str) -> str:
    verb = action.split()[0]
    if verb in ("play", "wish"):
        return "lay"
    if verb in ("discard", "draw"):
        return verb
    return "other"


def target_stone(kind: str, action: str, view: dict[str, Any] | None) -> str:
    """The stone a board-game action moves the mover's figure to ("r4"), or ""."""
    tokens = action.split()
    if kind != BOARD or len(tokens) < 2:
        return ""
    colour = None
    if tokens[0] == "clover" and tokens[1] in COLOURS:
        colour = tokens[1]
    elif tokens[0] == "play" and tokens[1] in CARDS:
        extra = tokens[2] if len(tokens) > 2 else None
        if extra in ("big", "small"):
            return f"{tokens[1][0]}1"
        if extra == ">-":
            return ""
        colour = extra[1:] if extra and extra.startswith(">") else tokens[1][0]
    player = _own_player(view)
    if colour is None or player is None:
        return ""
    figure = player.get("figures", {}).get(colour)
    if not figure or figure["stone"] >= END_STONE:
        return ""
    return f"{colour}{figure['stone'] + 1}"


def target_place(kind: str, action: str) -> str:
    """Where a card action goes on the table, lit for a tap (play.js): "row:<colour>" or
    "row:points" (the card game's own rows), "pile:<key>" (a discard), "wish:W<value>" (the
    card game's claim: the wishing-stone card its two cards take from the row), or "" (the
    board game's lays go to the stone of ``target_stone``, and other actions move no card)."""
    tokens = action.split()
    if len(tokens) < 2 or tokens[1] not in CARDS:
        return ""
    info = CARDS[tokens[1]]
    if tokens[0] == "wish":
        claim = kind != BOARD and len(tokens) == 3 and info.kind != WISH and info.value is not None
        return f"wish:W{info.value}" if claim else ""
    if tokens[0] not in ("play", "discard"):
        return ""
    if tokens[0] == "discard":
        return f"pile:{'P' if info.kind == POINT else info.colour}"
    if kind == BOARD:
        return ""
    if info.kind == POINT:
        extra = tokens[2] if len(tokens) > 2 else None
        return f"row:{extra}" if extra is not None and extra in COLOURS else "row:points"
    return f"row:{info.colour}"


def _choice(kind: str, action: str, view: dict[str, Any] | None) -> ActionChoice:
    label = action_label(kind, action, view)
    return ActionChoice(
        action=action,
        label=label,
        short=short_label(kind, action, view, label),
        style=_style(action),
        target=target_stone(kind, action, view),
        place=target_place(kind, action),
    )


def action_groups(kind: str, legal: list[str], view: dict[str, Any] | None) -> list[ActionGroup]:
    """The legal actions as buttons, grouped: one group per card in hand, then wishing stones,
    clovers, draws, and "done"."""
    by_card: dict[str, list[str]] = {}
    other: dict[str, list[str]] = {"wish": [], "clover": [], "draw": [], "done": []}
    for action in legal:
        tokens = action.split()
        verb = tokens[0]
        if verb in ("play", "discard") and len(tokens) > 1:
            by_card.setdefault(tokens[1], []).append(action)
        else:
            other.setdefault(verb, []).append(action)
    groups = []
    for card in sorted(by_card, key=lambda c: card_sort_key(c) if c in CARDS else 999):
        actions = sorted(by_card[card], key=_choice_rank)
        groups.append(
            ActionGroup(
                title=card_name(card),
                card=chip(card),
                choices=[_choice(kind, a, view) for a in actions],
            )
        )
    for verb, actions in other.items():
        if not actions:
            continue
        if verb == "draw":
            actions = sorted(actions, key=lambda a: (a != "draw deck", a))
        groups.append(
            ActionGroup(
                title=_group_title(verb),
                card=None,
                choices=[_choice(kind, a, view) for a in actions],
            )
        )
    return groups


def _group_title(verb: str) -> str:
    """The title of the group of ``verb``'s actions, translated only for a group shown (a
    turn has one or two such groups, and each title cost a gettext call)."""
    if verb == "wish":
        return _("Claim a wishing stone")
    if verb == "clover":
        return _("Clover")
    if verb == "draw":
        return _("Draw")
    if verb == "done":
        return _("Finish")
    return verb
