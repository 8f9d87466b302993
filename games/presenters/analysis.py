"""The post-game analysis as rows of the history page: each move, the strong bot's choice, the
cost it saw. Words only; the numbers come from games.analysis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import action_label

#: a cost under this many points is shown as agreeing with the bot (its search is noisy)
AGREES_BELOW = 0.5


@dataclass(frozen=True)
class AnalysisRow:
    seq: int
    played: str
    best: str
    cost: float
    #: the bot played the same, or saw the difference as noise
    agrees: bool


def analysis_rows(kind: str, moves: list[dict[str, Any]]) -> list[AnalysisRow]:
    return [
        AnalysisRow(
            seq=move["seq"],
            played=action_label(kind, move["played"]),
            best=action_label(kind, move["best"]),
            cost=move["cost"],
            agrees=move["played"] == move["best"] or move["cost"] < AGREES_BELOW,
        )
        for move in moves
    ]


def analysis_summary(rows: list[AnalysisRow]) -> tuple[int, int, float]:
    """(moves looked at, moves the bot agrees with, total cost in points)."""
    return len(rows), sum(1 for r in rows if r.agrees), round(sum(r.cost for r in rows), 1)
