"""The game page's "Latest moves" items, written in Python (games/templatetags/move_lists.py,
issue 30), are the bytes the template's loop drew before: the old loop's text, kept in
tests/games/before_issue30/ (not a live template), renders beside the filter for moves of
every source, with and without a source's note, names that need escaping, and times from
seconds to a year ago (and none, and ahead), in every language and two time zones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.template import Context, Template
from django.utils import timezone, translation

from games.models import EventSource
from games.presenters.board import make_figure
from games.presenters.history import EventLine, event_text, source_note
from games.templatetags.move_lists import latest_moves

# the loop of games/game.html's <ol class="event-list">, without the line's end around it
OLD = Template((Path(__file__).parent / "before_issue30" / "_latest_moves.html").read_text())
NOW = datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC)
NAMES = ['Ann & <b>"Bo"</b>', "Zoë's", "Юрий", "p3"]
AGO = [
    timedelta(seconds=0), timedelta(seconds=30), timedelta(seconds=59), timedelta(minutes=1),
    timedelta(minutes=5, seconds=9), timedelta(minutes=59), timedelta(hours=1),
    timedelta(hours=3, minutes=5), timedelta(days=1), timedelta(days=2, hours=3),
    timedelta(days=8), timedelta(days=40), timedelta(days=400), timedelta(minutes=-5),
]  # fmt: skip
ACTIONS = ["draw deck", "clover pass", "done", "bogus"]
LANGUAGES = [code for code, _name in settings.LANGUAGES]


def moves(kind: str) -> list[EventLine]:
    """Moves of every source (a note unless the player chose), seat and age, as
    games.presenters.history.event_lines makes them (its texts in the active language)."""
    lines = []
    sources = list(EventSource)
    for i, ago in enumerate([*AGO, None]):
        seat, source = i % len(NAMES), sources[i % len(sources)]
        name = NAMES[seat]
        text = event_text(kind, ACTIONS[i % len(ACTIONS)], name, None)
        lines.append(EventLine(
            seq=i * 997 + 1, seat=seat, who=name, text=text,
            when=None if ago is None else NOW - ago,
            icon=make_figure(seat, name, None, 0, i % 2 == 1, 0, 0),
            source=source, source_note=source_note(source),
        ))  # fmt: skip
    return lines


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_moves_written_in_python_are_the_old_loop_byte_for_byte(
    language: str, zone: str
) -> None:
    travel = time_machine.travel(NOW, tick=False)
    with travel, translation.override(language), timezone.override(zone):
        for kind in ("keltis", "keltis-cards"):
            events = moves(kind)
            for count in (0, 1, len(events)):
                shown = events[:count]
                old = OLD.render(Context({"events": shown}))
                assert latest_moves(shown) == old
            # every source's note and every age was drawn
            whole = latest_moves(events)
            notes = {s for s in EventSource if f"event-source--{s}" in whole}
            assert notes == {"bot", "timeout", "retired"} and whole.count("<li ") == len(events)
