"""What the game pages draw, made from engine views: words for actions, SVG coordinates, panels.

No database here and no HTML: selectors hand over engine views and seats, templates draw the
dataclasses made here. Every word a player reads goes through gettext.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine.board_layouts import END_STONE, GOAL_FROM, STONE_VALUES
from games.engine.cards import CARDS, CLOSING, COLOURS, NUMBER, POINT, card_sort_key

from ..listings import bank_text, days_per_move_text, duration_text, time_left_text
from ..models import EventSource, GameStatus
from ..selectors import EventInfo, GamePage, HistoryPage, SeatInfo

BOARD, CARD_GAME = "keltis", "keltis-cards"

COLOUR_LABELS = {
    "g": gettext_lazy("green"),
    "y": gettext_lazy("yellow"),
    "r": gettext_lazy("red"),
    "p": gettext_lazy("pink"),
    "b": gettext_lazy("blue"),
}
#: path colour: (stroke / card colour, light fill of a stone)
PATH_COLOURS = {
    "g": ("#2f8f43", "#d3ecd5"),
    "y": ("#d9a900", "#fbf0bf"),
    "r": ("#cc3328", "#f7d0cb"),
    "p": ("#d9629e", "#f9dbea"),
    "b": ("#2f63b8", "#d2ddf3"),
}


# -- cards --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CardChip:
    """One card as drawn: a coloured chip with a short text, and its full name for readers."""

    card: str
    css: str
    text: str
    name: str


def card_name(card: str) -> str:
    """``r7`` → "red 7", ``rx`` → "red closing card", ``P7`` → "point card 7", ``W5`` → ..."""
    info = CARDS.get(card)
    if info is None:
        return card
    if info.kind == NUMBER:
        return _("%(colour)s %(value)s") % {
            "colour": COLOUR_LABELS[info.colour], "value": info.value
        }
    if info.kind == CLOSING:
        return _("%(colour)s closing card") % {"colour": COLOUR_LABELS[info.colour]}
    if info.kind == POINT:
        return _("point card %(value)s") % {"value": info.value}
    return _("wishing stone %(value)s") % {"value": info.value}


def chip(card: str) -> CardChip:
    info = CARDS.get(card)
    if info is None:
        return CardChip(card=card, css="kcard-unknown", text=card, name=card)
    if info.kind == NUMBER:
        css, text = f"kcard-{info.colour}", str(info.value)
    elif info.kind == CLOSING:
        css, text = f"kcard-{info.colour} kcard-closing", "\N{MULTIPLICATION SIGN}"
    elif info.kind == POINT:
        css, text = "kcard-P", str(info.value)
    else:
        css, text = "kcard-W", str(info.value)
    return CardChip(card=card, css=css, text=text, name=card_name(card))


def chips(cards: list[str] | None) -> list[CardChip]:
    return [chip(card) for card in cards or []]


def pile_label(key: str) -> str:
    if key == "P":
        return _("the point pile")
    return _("the %(colour)s pile") % {"colour": _colour(key)}


def _colour(key: str) -> str:
    return str(COLOUR_LABELS.get(key, key))


# -- actions: buttons (imperative) and what happened (past tense) -------------------------------
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


def tile_name(tile: str | None) -> str | None:
    if tile is None:
        return None
    if tile == "wish":
        return _("wishing stone")
    if tile == "clover":
        return _("clover")
    return _("point tile %(value)s") % {"value": tile}


def stone_words(view: dict[str, Any] | None, colour: str, stone: int) -> str:
    """A stone as players see it: "stone 4 (worth 1)", with the tile lying there if any."""
    value = STONE_VALUES[stone]
    tile = tile_name(((view or {}).get("tiles", {}).get(colour) or {}).get(str(stone)))
    if tile:
        return _("stone %(stone)s (worth %(value)s, %(tile)s)") % {
            "stone": stone, "value": value, "tile": tile
        }
    return _("stone %(stone)s (worth %(value)s)") % {"stone": stone, "value": value}


def _board_label(verb: str, rest: list[str], view: dict[str, Any] | None) -> str | None:
    if verb == "clover" and rest:
        if rest[0] == "pass":
            return _("Decline the clover")
        stone = _next_stone(view, rest[0])
        if stone:
            return _("Use the clover: move your %(colour)s figure to %(stone)s") % {
                "colour": _colour(rest[0]), "stone": stone
            }
        return _("Use the clover: move your %(colour)s figure") % {"colour": _colour(rest[0])}
    if verb != "play" or not rest or rest[0] not in CARDS:
        return None
    card, colour = rest[0], rest[0][0]
    params = {"card": card_name(card), "colour": _colour(colour)}
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
            **params, "other": _colour(extra[1:])
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
                "card": card_name(card), "colour": _colour(rest[1])
            }
        return _("Lay %(card)s in your point row") % {"card": card_name(card)}
    if info.kind == CLOSING:
        player = _own_player(view)
        if player and player.get("closed", {}).get(info.colour):
            return _("Seal your %(colour)s row with the second closing card") % {
                "colour": _colour(info.colour)
            }
        return _("Close your %(colour)s row with %(card)s") % {
            "colour": _colour(info.colour), "card": card_name(card)
        }
    player = _own_player(view)
    if player is not None and info.colour not in player.get("rows", {}):
        return _("Lay %(card)s and start your %(colour)s row") % {
            "card": card_name(card), "colour": _colour(info.colour)
        }
    return _("Lay %(card)s in your %(colour)s row") % {
        "card": card_name(card), "colour": _colour(info.colour)
    }


#: past tense, (someone, you): separate strings so that translations can conjugate
_PAST: dict[str, tuple[Any, Any]] = {
    "start_big": (
        gettext_lazy("%(who)s laid %(card)s and started the %(colour)s path with the big figure"),
        gettext_lazy("You laid %(card)s and started the %(colour)s path with your big figure"),
    ),
    "start_small": (
        gettext_lazy("%(who)s laid %(card)s and started the %(colour)s path with a small figure"),
        gettext_lazy("You laid %(card)s and started the %(colour)s path with a small figure"),
    ),
    "play_move": (
        gettext_lazy("%(who)s laid %(card)s and moved the %(colour)s figure"),
        gettext_lazy("You laid %(card)s and moved your %(colour)s figure"),
    ),
    "play_other": (
        gettext_lazy("%(who)s laid %(card)s and moved the %(other)s figure"),
        gettext_lazy("You laid %(card)s and moved your %(other)s figure"),
    ),
    "play_none": (
        gettext_lazy("%(who)s laid %(card)s and moved no figure"),
        gettext_lazy("You laid %(card)s and moved no figure"),
    ),
    "clover_move": (
        gettext_lazy("%(who)s used a clover to move the %(colour)s figure"),
        gettext_lazy("You used a clover to move your %(colour)s figure"),
    ),
    "clover_pass": (
        gettext_lazy("%(who)s declined a clover"),
        gettext_lazy("You declined the clover"),
    ),
    "discard": (
        gettext_lazy("%(who)s discarded %(card)s"),
        gettext_lazy("You discarded %(card)s"),
    ),
    "draw_deck": (
        gettext_lazy("%(who)s drew from the deck"),
        gettext_lazy("You drew from the deck"),
    ),
    "draw_pile": (
        gettext_lazy("%(who)s took %(card)s from %(pile)s"),
        gettext_lazy("You took %(card)s from %(pile)s"),
    ),
    "draw_pile_top": (
        gettext_lazy("%(who)s took the top card of %(pile)s"),
        gettext_lazy("You took the top card of %(pile)s"),
    ),
    "lay_row": (
        gettext_lazy("%(who)s laid %(card)s in the %(colour)s row"),
        gettext_lazy("You laid %(card)s in your %(colour)s row"),
    ),
    "lay_closing": (
        gettext_lazy("%(who)s laid %(card)s at the end of the %(colour)s row"),
        gettext_lazy("You laid %(card)s at the end of your %(colour)s row"),
    ),
    "lay_point_row": (
        gettext_lazy("%(who)s laid %(card)s in the point row"),
        gettext_lazy("You laid %(card)s in your point row"),
    ),
    "lay_point_on": (
        gettext_lazy("%(who)s laid %(card)s at the end of the %(colour)s row"),
        gettext_lazy("You laid %(card)s at the end of your %(colour)s row"),
    ),
    "wish": (
        gettext_lazy("%(who)s claimed wishing stone %(value)s with %(card)s + %(card2)s"),
        gettext_lazy("You claimed wishing stone %(value)s with %(card)s + %(card2)s"),
    ),
    "done": (
        gettext_lazy("%(who)s laid no more cards"),
        gettext_lazy("You laid no more cards"),
    ),
}


def _past_key(kind: str, action: str) -> tuple[str, dict[str, Any]] | None:
    tokens = action.split()
    if not tokens:
        return None
    verb, rest = tokens[0], tokens[1:]
    if verb == "done" and not rest:
        return "done", {}
    if verb == "draw" and len(rest) == 1:
        return ("draw_deck", {}) if rest[0] == "deck" else ("draw_pile", {"pile": rest[0]})
    if verb == "discard" and len(rest) == 1 and rest[0] in CARDS:
        return "discard", {"card": card_name(rest[0])}
    if verb == "clover" and len(rest) == 1:
        if rest[0] == "pass":
            return "clover_pass", {}
        return "clover_move", {"colour": _colour(rest[0])}
    if verb == "wish" and len(rest) == 2 and all(c in CARDS for c in rest):
        return "wish", {
            "card": card_name(rest[0]), "card2": card_name(rest[1]),
            "value": CARDS[rest[0]].value,
        }
    if verb != "play" or not rest or rest[0] not in CARDS:
        return None
    card = rest[0]
    info = CARDS[card]
    params: dict[str, Any] = {"card": card_name(card)}
    if info.colour:
        params["colour"] = _colour(info.colour)
    if kind == BOARD:
        if len(rest) == 1:
            return "play_move", params
        extra = rest[1]
        if extra in ("big", "small"):
            return f"start_{extra}", params
        if extra == ">-":
            return "play_none", params
        return "play_other", {**params, "other": _colour(extra[1:])}
    if info.kind == POINT:
        if len(rest) == 2:
            return "lay_point_on", {**params, "colour": _colour(rest[1])}
        return "lay_point_row", params
    if info.kind == CLOSING:
        return "lay_closing", params
    return "lay_row", params


def event_text(kind: str, action: str, who: str | None = None, drawn: str | None = None) -> str:
    """What an action did, in the past tense: "bela drew from the deck"; ``who=None``: "You…"."""
    found = _past_key(kind, action)
    if found is None:
        return f"{who}: {action}" if who else action
    key, params = found
    if key == "draw_pile":
        params = {"pile": pile_label(params["pile"])}
        if drawn:
            params["card"] = card_name(drawn)
        else:
            key = "draw_pile_top"
    someone, you = _PAST[key]
    if who is None:
        return str(you) % params
    return str(someone) % {**params, "who": who}


def result_message(
    kind: str,
    action: str,
    view: dict[str, Any],
    seat: int,
    names: list[str],
    before: dict[str, Any] | None = None,
) -> str:
    """The confirmation after an action: what it did, where the figure stands, what it won,
    what comes next.

    ``view`` is the acting seat's view right after the action, ``before`` the one right before
    it (what the figure won is the difference: a wishing stone leaves the board when taken).
    """
    parts = [event_text(kind, action) + "."]
    me = view["players"][seat]
    if kind == BOARD:
        moved = _moved_colour(action)
        figure = me.get("figures", {}).get(moved) if moved else None
        if figure:
            parts.append(
                _("Your %(colour)s figure is now on %(stone)s.")
                % {"colour": _colour(moved), "stone": stone_words(None, moved, figure["stone"])}
            )
        if before is not None:
            parts += tiles_won(before["players"][seat], me)
    to_move, phase = view.get("to_move"), view.get("phase")
    if to_move is None:
        parts.append(_("The game is over."))
    elif to_move == seat:
        if phase == "clover":
            parts.append(_("You reached a clover: move a figure one more stone, or decline."))
        elif phase == "draw":
            count = view.get("draws_left") or 1
            parts.append(
                ngettext("Now draw a card.", "Now draw %(count)s cards.", count)
                % {"count": count}
            )
        elif phase == "end":
            parts.append(_("You may lay another card, or say done."))
    else:
        name = names[to_move] if 0 <= to_move < len(names) else str(to_move)
        parts.append(_("It is now %(name)s's turn.") % {"name": name})
    return " ".join(parts)


def tiles_won(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What one board-game action won, from the player's part of the view before and after
    it: a wishing stone taken, the points of a point tile (one move reaches one tile)."""
    won = []
    stones = after.get("wishing_stones", 0)
    if stones > before.get("wishing_stones", 0):
        won.append(
            ngettext(
                "You took the wishing stone there: you now hold %(n)s wishing stone.",
                "You took the wishing stone there: you now hold %(n)s wishing stones.",
                stones,
            )
            % {"n": stones}
        )
    points = after.get("tile_points", 0) - before.get("tile_points", 0)
    if points > 0:
        won.append(
            ngettext(
                "The point tile %(value)s there scored you %(value)s point.",
                "The point tile %(value)s there scored you %(value)s points.",
                points,
            )
            % {"value": points}
        )
    return won


def _moved_colour(action: str) -> str | None:
    tokens = action.split()
    if tokens[:1] == ["clover"] and len(tokens) == 2 and tokens[1] in COLOURS:
        return tokens[1]
    if tokens[:1] != ["play"] or len(tokens) < 2 or tokens[1] not in CARDS:
        return None
    if len(tokens) == 2 or tokens[2] in ("big", "small"):
        return tokens[1][0]
    if tokens[2].startswith(">") and tokens[2][1:] in COLOURS:
        return tokens[2][1:]
    return None


@dataclass(frozen=True)
class ActionChoice:
    action: str
    #: the whole meaning, standing alone (the button's accessible name and tooltip)
    label: str
    #: the words on the button, read under its group's title (the card): "Discard"
    short: str
    #: "lay", "discard", "draw" or "other": only for styling
    style: str


def short_label(kind: str, action: str, view: dict[str, Any] | None = None) -> str:
    """The button text under a card's group title; the full label for other actions."""
    tokens = action.split()
    if len(tokens) < 2 or tokens[0] not in ("play", "discard") or tokens[1] not in CARDS:
        return action_label(kind, action, view)
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
            return _("Lay, move the %(colour)s figure") % {"colour": _colour(extra[1:])}
        stone = _next_stone(view, card[0])
        if stone:
            return _("Lay: figure to %(stone)s") % {"stone": stone}
        return _("Lay")
    if info.kind == POINT:
        if extra is not None and extra in COLOURS:
            return _("Lay at the end of the %(colour)s row") % {"colour": _colour(extra)}
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


def _choice(kind: str, action: str, view: dict[str, Any] | None) -> ActionChoice:
    return ActionChoice(
        action=action,
        label=action_label(kind, action, view),
        short=short_label(kind, action, view),
        style=_style(action),
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
    titles = {
        "wish": _("Claim a wishing stone"),
        "clover": _("Clover"),
        "draw": _("Draw"),
        "done": _("Finish"),
    }
    for verb, actions in other.items():
        if not actions:
            continue
        if verb == "draw":
            actions = sorted(actions, key=lambda a: (a != "draw deck", a))
        groups.append(
            ActionGroup(
                title=titles.get(verb, verb),
                card=None,
                choices=[_choice(kind, a, view) for a in actions],
            )
        )
    return groups


# -- the board as SVG ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatStyle:
    fill: str
    stroke: str
    #: the dot that marks a big figure: a colour that stands out on ``fill``
    mark: str
    shape: str
    label: str


#: seat colours, chosen apart from the five path colours; a shape too, for colour-blind eyes
SEAT_STYLES = (
    SeatStyle("#1e1e1e", "#000000", "#ffffff", "circle", gettext_lazy("black circle")),
    SeatStyle("#ffffff", "#1e1e1e", "#1e1e1e", "square", gettext_lazy("white square")),
    SeatStyle("#b0601a", "#3d1f05", "#ffffff", "triangle", gettext_lazy("brown triangle")),
    SeatStyle("#8a3fbf", "#2a0f3d", "#ffffff", "diamond", gettext_lazy("purple diamond")),
)

SVG_WIDTH = 770
SVG_HEIGHT = 645
COLUMN_X0, COLUMN_DX = 82, 146
ROW_TOP, ROW_DY = 84, 54
STONE_R = 19
#: where each seat's figure stands beside a stone: a 2 x 2 cluster right of the stone's centre
FIGURE_SLOTS = ((30.0, -9.5), (30.0, 9.5), (48.0, -9.5), (48.0, 9.5))
SMALL_SIZE, BIG_SIZE = 12, 18
TILE_DX = -37
START_Y = 600
START_RX, START_RY = 190, 30


def seat_style(index: int) -> SeatStyle:
    return SEAT_STYLES[index % len(SEAT_STYLES)]


@dataclass(frozen=True)
class TileMark:
    kind: str  # "wish", "clover" or "points"
    x: float
    y: float
    text: str
    title: str


@dataclass(frozen=True)
class Stone:
    colour: str
    number: int
    value: int
    x: float
    y: float
    r: float
    fill: str
    stroke: str
    goal: bool
    end: bool
    tile: TileMark | None
    title: str


@dataclass(frozen=True)
class Figure:
    seat: int
    colour: str | None  # the path; None on the start stone
    stone: int
    big: bool
    x: float
    y: float
    size: float
    shape: str
    #: polygon points around (0, 0); the template translates to (x, y); empty for circles
    points: str
    fill: str
    stroke: str
    mark: str
    title: str

    @property
    def r(self) -> float:
        return self.size / 2


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str


@dataclass(frozen=True)
class PathHead:
    colour: str
    label: str
    x: float
    y: float
    stroke: str


@dataclass(frozen=True)
class BoardSvg:
    width: int
    height: int
    stones: list[Stone]
    figures: list[Figure]
    lines: list[Line]
    heads: list[PathHead]
    goal_top: float
    goal_height: float
    goal_label_y: float
    start_x: float
    start_y: float
    start_rx: float
    start_ry: float
    start_label_x: float


def stone_xy(colour: str, number: int) -> tuple[float, float]:
    """Centre of stone ``number`` (1..9) of the path ``colour``; paths run bottom to top."""
    ci = COLOURS.index(colour)
    return COLUMN_X0 + ci * COLUMN_DX, ROW_TOP + (END_STONE - number) * ROW_DY


def figure_points(shape: str, size: float) -> str:
    """Polygon points of a figure shape centred on (0, 0); "" for a circle."""
    h = size / 2
    corners: list[tuple[float, float]]
    if shape == "square":
        h *= 0.9
        corners = [(-h, -h), (h, -h), (h, h), (-h, h)]
    elif shape == "triangle":
        corners = [(0, -h * 1.15), (h * 1.1, h * 0.85), (-h * 1.1, h * 0.85)]
    elif shape == "diamond":
        corners = [(0, -h * 1.25), (h * 1.05, 0), (0, h * 1.25), (-h * 1.05, 0)]
    else:
        return ""
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def make_figure(
    seat: int, name: str, colour: str | None, stone: int, big: bool, x: float, y: float
) -> Figure:
    style = seat_style(seat)
    size = BIG_SIZE if big else SMALL_SIZE
    what = _("big figure") if big else _("small figure")
    if colour is None:
        where = _("on the start stone")
    else:
        where = _("on stone %(stone)s of the %(colour)s path") % {
            "stone": stone, "colour": _colour(colour)
        }
    return Figure(
        seat=seat, colour=colour, stone=stone, big=big, x=x, y=y, size=size, shape=style.shape,
        points=figure_points(style.shape, size), fill=style.fill, stroke=style.stroke,
        mark=style.mark, title=f"{name}: {what} {where}",
    )


def _tile_mark(tile: str, x: float, y: float) -> TileMark:
    if tile in ("wish", "clover"):
        return TileMark(tile, x, y, "", tile_name(tile) or "")
    return TileMark("points", x, y, tile, tile_name(tile) or "")


def board_svg(view: dict[str, Any], names: list[str]) -> BoardSvg:
    """Coordinates of every stone, tile and figure of a board-game view."""
    stones, lines, heads = [], [], []
    start_x = SVG_WIDTH / 2
    tiles = view.get("tiles", {})
    for colour in COLOURS:
        stroke, fill = PATH_COLOURS[colour]
        x1, y1 = stone_xy(colour, 1)
        x9, y9 = stone_xy(colour, END_STONE)
        lines.append(Line(start_x, START_Y - 26, x1, y1 + STONE_R, stroke))
        lines.append(Line(x1, y1, x9, y9, stroke))
        heads.append(PathHead(colour, _colour(colour), x9, y9 - ROW_DY / 2 - 12, stroke))
        for number in range(1, END_STONE + 1):
            x, y = stone_xy(colour, number)
            tile = tiles.get(colour, {}).get(str(number))
            value = STONE_VALUES[number]
            stones.append(
                Stone(
                    colour=colour, number=number, value=value, x=x, y=y, r=STONE_R,
                    fill=fill, stroke=stroke, goal=number >= GOAL_FROM, end=number == END_STONE,
                    tile=_tile_mark(tile, x + TILE_DX, y) if tile else None,
                    title=_("%(colour)s path, stone %(stone)s: worth %(value)s") % {
                        "colour": _colour(colour), "stone": number, "value": value
                    },
                )
            )
    figures = []
    players = view.get("players", [])
    n = max(len(players), 1)
    group = (2 * START_RX - 40) / n
    for seat, player in enumerate(players):
        name = names[seat] if seat < len(names) else str(seat)
        for colour, figure in player.get("figures", {}).items():
            x, y = stone_xy(colour, figure["stone"])
            dx, dy = FIGURE_SLOTS[seat % len(FIGURE_SLOTS)]
            figures.append(
                make_figure(seat, name, colour, figure["stone"], figure["big"], x + dx, y + dy)
            )
        on_start = player.get("on_start", {})
        left = start_x - START_RX + 20 + seat * group + 12
        waiting = [True] * on_start.get("big", 0) + [False] * on_start.get("small", 0)
        for i, big in enumerate(waiting):
            figures.append(make_figure(seat, name, None, 0, big, left + i * 15, START_Y + 4))
    goal_top = stone_xy("g", END_STONE)[1] - ROW_DY / 2
    goal_bottom = stone_xy("g", GOAL_FROM)[1] + ROW_DY / 2
    return BoardSvg(
        width=SVG_WIDTH, height=SVG_HEIGHT, stones=stones, figures=figures, lines=lines,
        heads=heads, goal_top=goal_top, goal_height=goal_bottom - goal_top,
        goal_label_y=(goal_top + goal_bottom) / 2, start_x=start_x, start_y=START_Y,
        start_rx=START_RX, start_ry=START_RY, start_label_x=start_x - START_RX - 10,
    )


# -- the players' panels, piles and the table ---------------------------------------------------
_DIRECTIONS = {"ascending": "↑", "descending": "↓"}
_DIRECTION_TEXTS = {
    "ascending": gettext_lazy("ascending"),
    "descending": gettext_lazy("descending"),
    "open": gettext_lazy("no order yet: either way"),
}


@dataclass(frozen=True)
class ColumnInfo:
    colour: str
    label: str
    cards: list[CardChip]
    direction: str  # "ascending", "descending", "open" or "" (no cards)
    arrow: str
    #: board game: where this column's figure stands ("stone 4"), its icon and a full sentence
    figure: str = ""
    figure_icon: Figure | None = None
    figure_title: str = ""
    closed: bool = False
    sealed: bool = False

    @property
    def direction_text(self) -> str:
        """The order in words, in the reader's language (``direction`` is the engine's)."""
        return str(_DIRECTION_TEXTS.get(self.direction, ""))


@dataclass(frozen=True)
class PlayerPanel:
    seat: SeatInfo
    style: SeatStyle
    profile_url: str | None
    score: int
    hand_count: int
    #: the hand, only when the page may show it (never another player's in a running game)
    hand: list[CardChip] | None
    columns: list[ColumnInfo]
    to_move: bool
    winner: bool
    #: the seat's figure, as drawn on the board (the legend's shape and colour)
    icon: Figure
    # board game
    wishing_stones: int = 0
    tile_points: int = 0
    on_start: str = ""
    # card game
    point_row: list[CardChip] = field(default_factory=list)
    stone_cards: list[CardChip] = field(default_factory=list)

    @property
    def retired_note(self) -> str:
        return retired_note(self.seat.timeouts) if self.seat.retired else ""


@dataclass(frozen=True)
class PileInfo:
    key: str
    label: str
    short: str
    top: CardChip | None
    size: int
    #: discarded this turn (may not be taken back, where that rule applies)
    fresh: bool


@dataclass(frozen=True)
class StoneSlot:
    chip: CardChip
    free: bool


@dataclass(frozen=True)
class TableView:
    kind: str
    board: BoardSvg | None
    players: list[PlayerPanel]
    piles: list[PileInfo]
    deck_count: int
    goal_count: int | None
    wishing_stones: list[StoneSlot]
    closed_rows: int | None
    #: the card game's closed rows in words ("" for the board game)
    closed_rows_text: str = ""


def profile_url(username: str | None) -> str | None:
    """The player's profile page, once the lobby's ``player_profile`` route exists."""
    if not username:
        return None
    try:
        return reverse("player_profile", args=[username])
    except NoReverseMatch:
        return None


def _direction(direction: str | None, has_cards: bool) -> tuple[str, str]:
    if not has_cards:
        return "", ""
    if direction is None:
        return "open", "↕"
    return direction, _DIRECTIONS.get(direction, "")


def _board_columns(player: dict[str, Any], seat: SeatInfo) -> list[ColumnInfo]:
    columns = []
    for colour in COLOURS:
        cards = player.get("columns", {}).get(colour, [])
        direction, arrow = _direction(player.get("directions", {}).get(colour), bool(cards))
        figure = player.get("figures", {}).get(colour)
        icon = None
        if figure:
            icon = make_figure(seat.index, seat.name, colour, figure["stone"], figure["big"], 0, 0)
        columns.append(
            ColumnInfo(
                colour, _colour(colour), chips(cards), direction, arrow,
                figure=_("stone %(stone)s (%(value)s)") % {
                    "stone": figure["stone"], "value": STONE_VALUES[figure["stone"]]
                } if figure else "",
                figure_icon=icon,
                figure_title=icon.title if icon else "",
            )
        )
    return columns


def _card_rows(player: dict[str, Any]) -> list[ColumnInfo]:
    rows = []
    for colour in COLOURS:
        cards = player.get("rows", {}).get(colour, [])
        direction, arrow = _direction(player.get("directions", {}).get(colour), bool(cards))
        rows.append(
            ColumnInfo(
                colour, _colour(colour), chips(cards), direction, arrow,
                closed=bool(player.get("closed", {}).get(colour)),
                sealed=bool(player.get("sealed", {}).get(colour)),
            )
        )
    return rows


def _on_start(player: dict[str, Any]) -> str:
    on_start = player.get("on_start", {})
    big, small = on_start.get("big", 0), on_start.get("small", 0)
    parts = []
    if big:
        parts.append(_("the big figure"))
    if small:
        parts.append(ngettext("%(n)s small figure", "%(n)s small figures", small) % {"n": small})
    return ", ".join(parts) if parts else _("none")


def table_view(
    kind: str,
    view: dict[str, Any],
    seats: list[SeatInfo],
    *,
    show_hands: bool = False,
    winners: list[int] | None = None,
) -> TableView:
    """Everything public about the position (and the hands, when ``show_hands``)."""
    names = [s.name for s in seats]
    winners = winners or []
    panels = []
    for index, player in enumerate(view.get("players", [])):
        seat = seats[index] if index < len(seats) else SeatInfo(
            index, str(index), False, None, False, None, None
        )
        common = {
            "seat": seat,
            "style": seat_style(index),
            "profile_url": profile_url(seat.username),
            "score": player.get("score", 0),
            "hand_count": player.get("hand_count", 0),
            "hand": chips(player.get("hand")) if show_hands and player.get("hand") else None,
            "to_move": view.get("to_move") == index,
            "winner": index in winners,
            "icon": make_figure(index, seat.name, None, 0, False, 0, 0),
        }
        if kind == BOARD:
            panels.append(
                PlayerPanel(
                    **common, columns=_board_columns(player, seat),
                    wishing_stones=player.get("wishing_stones", 0),
                    tile_points=player.get("tile_points", 0), on_start=_on_start(player),
                )
            )
        else:
            panels.append(
                PlayerPanel(
                    **common, columns=_card_rows(player),
                    point_row=chips(player.get("point_row")),
                    stone_cards=chips(player.get("wishing_stones")),
                )
            )
    # a finished game has no turn left: what was discarded in the last one may not be marked
    fresh = view.get("discarded_this_turn") if view.get("phase") != "finished" else None
    fresh_keys = set(fresh) if isinstance(fresh, list) else ({fresh[0]} if fresh else set())
    piles = []
    for key, cards in view.get("piles", {}).items():
        piles.append(
            PileInfo(
                key=key, label=pile_label(key),
                short=_("points") if key == "P" else _colour(key),
                top=chip(cards[-1]) if cards else None,
                size=len(cards), fresh=key in fresh_keys and bool(cards),
            )
        )
    stones: list[StoneSlot] = []
    if kind == CARD_GAME:
        free = set(view.get("wishing_stones", []))
        stones = [StoneSlot(chip(f"W{v}"), f"W{v}" in free) for v in range(1, 10)]
    return TableView(
        kind=kind,
        board=board_svg(view, names) if kind == BOARD else None,
        players=panels,
        piles=piles,
        deck_count=view.get("deck_count", 0),
        goal_count=view.get("goal_count") if kind == BOARD else None,
        wishing_stones=stones,
        closed_rows=view.get("closed_rows") if kind == CARD_GAME else None,
        closed_rows_text=closed_rows_text(view) if kind == CARD_GAME else "",
    )


def closed_rows_text(view: dict[str, Any]) -> str:
    """The card game's closed rows: out of the five that end it while it runs; once its end
    has begun just the count, as the last lays may close more rows than the five (rules.md
    §2: any existing row, by the normal rules)."""
    n = view.get("closed_rows") or 0
    if view.get("end_reason") is None:
        return ngettext(
            "%(n)s row closed of the 5 that end the game",
            "%(n)s rows closed of the 5 that end the game",
            n,
        ) % {"n": n}
    return ngettext("%(n)s row closed in all", "%(n)s rows closed in all", n) % {"n": n}


# -- status lines -------------------------------------------------------------------------------
def phase_text(kind: str, phase: str | None, view: dict[str, Any] | None = None) -> str:
    if phase == "play":
        if kind == BOARD:
            return _("play a card: lay it or discard it")
        return _("play a card: lay it, discard it, or claim a wishing stone")
    if phase == "clover":
        return _("use the clover or decline it")
    if phase == "draw":
        count = (view or {}).get("draws_left") or 1
        return ngettext("draw a card", "draw %(count)s cards", count) % {"count": count}
    if phase == "end":
        return _("the last lays: lay up to two more cards, or say done")
    if phase == "finished":
        return _("the game is over")
    return ""


def end_reason_text(kind: str, view: dict[str, Any] | None) -> str:
    reason = (view or {}).get("end_reason")
    if reason == "goal":
        return _("The fifth figure entered the goal area.")
    if reason == "deck":
        return _("The last card of the deck was drawn.")
    if reason == "closing":
        return _("A fifth row was closed.")
    return ""


@dataclass(frozen=True)
class ResultRow:
    place: int
    name: str
    score: int
    winner: bool
    style: SeatStyle


def results(seats: list[SeatInfo], scores: list[int], winners: list[int]) -> list[ResultRow]:
    rows = []
    for seat in seats:
        score = seat.score if seat.score is not None else scores[seat.index]
        place = seat.place or 1 + sum(1 for s in scores if s > score)
        rows.append(
            ResultRow(place, seat.name, score, seat.index in winners, seat_style(seat.index))
        )
    return sorted(rows, key=lambda r: (r.place, r.name))


@dataclass(frozen=True)
class EventLine:
    seq: int
    seat: int
    who: str
    text: str
    when: Any
    icon: Figure
    #: who chose the action (``EventSource``) and, unless the player did, a note saying so
    source: str = EventSource.PLAYER
    source_note: str = ""


def source_note(source: str) -> str:
    """How an action not chosen by its player is marked in the move lists."""
    if source == EventSource.TIMEOUT:
        return _("(timed out: played by the bot)")
    if source == EventSource.RETIRED:
        return _("(retired seat)")
    if source == EventSource.BOT:
        return _("(bot)")
    return ""


def event_lines(kind: str, events: list[EventInfo]) -> list[EventLine]:
    return [
        EventLine(
            seq=e.seq, seat=e.seat, who=e.seat_name,
            text=event_text(kind, e.action, e.seat_name, e.drawn), when=e.created_at,
            icon=make_figure(e.seat, e.seat_name, None, 0, False, 0, 0),
            source=e.source, source_note=source_note(e.source),
        )
        for e in events
    ]


# -- the clock ----------------------------------------------------------------------------------
def retired_note(timeouts: int) -> str:
    return ngettext(
        "retired after %(n)s timeout: plays automatically, ranks last",
        "retired after %(n)s timeouts: plays automatically, ranks last",
        timeouts,
    ) % {"n": timeouts}


@dataclass(frozen=True)
class SeatClock:
    seat: SeatInfo
    icon: Figure
    #: the seat's unused time bank in words ("" in a game without a bank, or for a bot)
    bank: str
    #: timeouts in a row (None for a bot: it never times out)
    timeouts: int | None
    #: why the seat is retired ("" unless it is)
    retired_note: str
    to_move: bool


@dataclass(frozen=True)
class ClockInfo:
    """Whose turn it is until when, and the game's time control, for the game page."""

    days_per_move: str
    bank_setting: str
    has_bank: bool
    max_timeouts: int
    seats: list[SeatClock]
    running: bool
    #: the seat to move (None unless the game runs)
    to_move: SeatInfo | None = None
    #: when the seat to move times out (None: a bot or retired seat, which plays at once)
    deadline: datetime | None = None
    #: "2 days, 23 hours left", or that the time is up
    time_left: str = ""
    overdue: bool = False
    #: how much of the deadline is the seat's time bank ("" when nothing)
    bank_in_deadline: str = ""


def clock_info(page: GamePage, now: datetime | None = None) -> ClockInfo:
    game = page.game
    now = now or timezone.now()
    has_bank = bool(game.bank_increment_hours)
    running = game.status == GameStatus.RUNNING and not page.finished and not page.frozen
    to_move = None
    if running and page.to_move is not None:
        to_move = next((s for s in page.seats if s.index == page.to_move), None)
    seats = [
        SeatClock(
            seat=s,
            icon=make_figure(s.index, s.name, None, 0, False, 0, 0),
            bank=duration_text(s.bank_seconds) if has_bank and not s.is_bot else "",
            timeouts=None if s.is_bot else s.timeouts,
            retired_note=retired_note(s.timeouts) if s.retired else "",
            to_move=to_move is not None and s.index == to_move.index,
        )
        for s in page.seats
    ]
    deadline = game.deadline if to_move is not None else None
    bank_part = ""
    if deadline is not None and has_bank and to_move is not None and to_move.bank_seconds:
        bank_part = duration_text(to_move.bank_seconds)
    return ClockInfo(
        days_per_move=days_per_move_text(game.days_per_move),
        bank_setting=bank_text(game.bank_increment_hours, game.bank_cap_hours),
        has_bank=has_bank,
        max_timeouts=game.max_timeouts,
        seats=seats,
        running=running,
        to_move=to_move,
        deadline=deadline,
        time_left=time_left_text(deadline, now),
        overdue=deadline is not None and deadline <= now,
        bank_in_deadline=bank_part,
    )


# -- page contexts ------------------------------------------------------------------------------
def game_context(page: GamePage, now: datetime | None = None) -> dict[str, Any]:
    """Everything ``games/game.html`` draws (``now``: for the time left, default the clock)."""
    game = page.game
    kind = game.kind
    names = [s.name for s in page.seats]
    context: dict[str, Any] = {
        "game": game,
        "page": page,
        "kind": kind,
        "is_board": kind == BOARD,
        "title": _("%(game)s #%(id)s") % {"game": game.get_kind_display(), "id": game.pk},
        "seats": [(s, seat_style(s.index), profile_url(s.username)) for s in page.seats],
        "legend": _legend(page.seats),
        "frozen": page.frozen,
    }
    if page.started and page.view is None:  # a log that does not replay: its moves only
        context["events"] = event_lines(kind, page.recent_events)
    if not page.started or page.view is None:
        return context
    view = page.view
    viewer = page.viewer_seat
    hand = None
    if viewer is not None:
        hand = chips(view["players"][viewer].get("hand"))
    to_move = page.to_move
    context.update(
        table=table_view(kind, view, page.seats, winners=page.winners),
        hand=hand,
        action_groups=action_groups(kind, page.legal, view) if page.legal else [],
        my_turn=viewer is not None and to_move == viewer and not page.finished and not page.frozen,
        to_move_name=names[to_move] if to_move is not None and to_move < len(names) else None,
        phase_text=phase_text(kind, page.phase, view),
        end_reason=end_reason_text(kind, view) if page.finished else "",
        results=results(page.seats, page.scores, page.winners) if page.finished else [],
        events=event_lines(kind, page.recent_events),
        clock=clock_info(page, now),
    )
    return context


def history_context(page: HistoryPage) -> dict[str, Any]:
    """Everything ``games/history.html`` draws: the event list and the position at a step."""
    game = page.game
    kind = game.kind
    events = event_lines(kind, page.events)
    context: dict[str, Any] = {
        "game": game,
        "page": page,
        "kind": kind,
        "is_board": kind == BOARD,
        "title": _("History of %(game)s #%(id)s") % {
            "game": game.get_kind_display(), "id": game.pk
        },
        "events": events,
        "legend": _legend(page.seats),
        "step": page.step,
        "last_step": page.last_step,
        "prev_step": page.step - 1 if page.step > 0 else None,
        "next_step": page.step + 1 if page.step < page.last_step else None,
        "current_event": events[page.step - 1] if 0 < page.step <= len(events) else None,
        "frozen": page.frozen,
    }
    if page.view is not None:
        context["table"] = table_view(kind, page.view, page.seats, show_hands=page.shows_hands)
        context["phase_text"] = phase_text(kind, page.view.get("phase"), page.view)
        to_move = page.view.get("to_move")
        names = [s.name for s in page.seats]
        context["to_move_name"] = (
            names[to_move] if to_move is not None and to_move < len(names) else None
        )
    return context


@dataclass(frozen=True)
class LegendEntry:
    name: str
    style: SeatStyle
    small: Figure
    big: Figure


def _legend(seats: list[SeatInfo]) -> list[LegendEntry]:
    return [
        LegendEntry(
            name=s.name,
            style=seat_style(s.index),
            small=make_figure(s.index, s.name, None, 0, False, 0, 0),
            big=make_figure(s.index, s.name, None, 0, True, 0, 0),
        )
        for s in seats
    ]
