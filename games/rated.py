"""Whether a game counts for the ratings, and why, in words a player reads.

The rule lives here once: the create form asks it about the choices being made, the game page
about its game, ``games.services.game_create`` when it marks a new game, and
``tournaments.ratings.rate_game`` before it rates a finished one. Ratings are pairwise Elo
(``tournaments.elo``): every pair of people at a table is rated as a duel, so a bot does not
spoil a table. Bots are left out and the people are rated against each other. What a rating
needs is a pair: two people at the table and, once the game is over, two people who made a
move of their own (a person whose every turn timed out did not play it).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

#: people (not bots) a rated game needs: at the table, and who made a move of their own
MIN_PEOPLE = 2


@dataclass(frozen=True)
class RatedStatus:
    rated: bool
    #: the reason in one sentence, in the active language: "Rated: ..." or "Unrated: ..."
    reason: str
    #: for a rated game still being played, what can yet make it unrated ("" otherwise): the
    #: page of a game that ends on an absent player's timeouts must not have promised "Rated"
    proviso: str = ""


def rated_status(
    *, people: int, bots: int, marked_rated: bool = True, movers: int | None = None
) -> RatedStatus:
    """Whether a table of ``people`` people (seats taken or still waiting for one) and ``bots``
    bots is rated, and why. Pure: no database, so the create form can ask about a game that
    does not exist yet.

    ``marked_rated`` is the game's own flag (False for a game made unrated, as games with bots
    were before pairs of people at them were rated); ``movers`` is, for a finished game, how
    many people made a move of their own (None while it runs: nobody can know yet).
    """
    if people < MIN_PEOPLE:
        return RatedStatus(False, _("Unrated: only one person at the table (bots are not rated)."))
    if not marked_rated:
        return RatedStatus(False, _("Unrated: this game was created as an unrated game."))
    if movers is not None and movers < MIN_PEOPLE:
        return RatedStatus(
            False, _("Unrated: fewer than two people made a move of their own.")
        )
    proviso = ""
    if movers is None:
        proviso = _(
            "It stays unrated if fewer than two people make a move of their own: turns played "
            "for an absent player when their time runs out do not count."
        )
    if bots:
        return RatedStatus(
            True,
            ngettext(
                "Rated: the %(n)s person at the table is rated against the others; "
                "bots are not rated.",
                "Rated: the %(n)s people at the table are rated against each other; "
                "bots are not rated.",
                people,
            )
            % {"n": people},
            proviso,
        )
    return RatedStatus(
        True,
        ngettext(
            "Rated: a game of %(n)s person.",
            "Rated: a game of %(n)s people, rated against each other.",
            people,
        )
        % {"n": people},
        proviso,
    )


def rule_text() -> str:
    """The whole rule in words, for the create form where the game does not exist yet."""
    rule = _(
        "A game is rated when at least two people play it. Bots are not rated: at a table "
        "with bots the people are rated against each other, by their places among "
        "themselves. A game in which fewer than two people make a move of their own "
        "stays unrated."
    )
    timeouts = _(
        "A turn played for an absent player when their time runs out is not a move of their "
        "own: a game that ends on the timeouts of a player who never moved is unrated."
    )
    return f"{rule} {timeouts}"
