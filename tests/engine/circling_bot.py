"""A bot that goes round in circles, for the tests that a table of bots alone still ends."""

from __future__ import annotations

from typing import Any

from games.engine.bots import DECK_DRAW


class PileBot:
    """Discards and takes what the others discarded, never the deck while a pile may be drawn
    from: bots alone that play so never empty the deck, which the rules of both games allow."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose_view(self, view: dict[str, Any]) -> str:
        legal = view["legal"]
        piles = [a for a in legal if a.startswith("draw ") and a != DECK_DRAW]
        discards = [a for a in legal if a.startswith("discard")]
        return (piles or discards or legal)[0]
