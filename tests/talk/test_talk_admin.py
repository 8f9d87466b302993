"""Staff and table talk in the admin: messages with their open reports, the reports (open
first) with the talk around the message, hiding, resolving and suspending an author."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.services import game_create_seated
from talk import services
from talk.models import Message, Report, Suspension

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(make_user: Any) -> dict[str, Any]:
    anna, bela = make_user("anna", display_name="Anna"), make_user("bela")
    game = game_create_seated(kind="keltis", seats=[anna, bela])
    rows = [
        Message.objects.create(game=game, author=anna if n % 2 else bela, seq=0, text=f"line {n}")
        for n in range(9)
    ]
    reported = rows[4]
    services.report(message_id=reported.pk, user=anna, reason="<b>rude</b>")
    staff = make_user("staff", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    return {"game": game, "rows": rows, "reported": reported, "client": client, "staff": staff}


def test_the_message_list_counts_open_reports_and_filters(scene: dict[str, Any]) -> None:
    client = scene["client"]
    listing = client.get(reverse("admin:talk_message_changelist"))
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "line 4" in html and "open reports" in html.lower()
    reported = client.get(reverse("admin:talk_message_changelist") + "?reported=open")
    assert "line 4" in reported.content.decode() and "line 3" not in reported.content.decode()
    hidden = client.get(reverse("admin:talk_message_changelist") + "?hidden=yes")
    assert "line 4" not in hidden.content.decode()


def test_a_report_shows_three_messages_either_side(scene: dict[str, Any]) -> None:
    client = scene["client"]
    [report] = Report.objects.all()
    page = client.get(reverse("admin:talk_report_change", args=[report.pk])).content.decode()
    for n in range(1, 8):
        assert f"line {n}" in page
    assert "line 0" not in page and "line 8" not in page
    assert "&lt;b&gt;rude&lt;/b&gt;" in page
    listing = client.get(reverse("admin:talk_report_changelist"))
    assert listing.status_code == 200


def test_open_reports_come_first(scene: dict[str, Any], make_user: Any) -> None:
    rows = scene["rows"]
    old = services.report(message_id=rows[1].pk, user=scene["staff"])
    Report.objects.filter(pk=old.pk).update(resolved_at=timezone.now())
    html = scene["client"].get(reverse("admin:talk_report_changelist")).content.decode()
    assert html.index("line 4") < html.index("line 1")


def test_hide_resolve_and_suspend_actions(scene: dict[str, Any]) -> None:
    client, reported = scene["client"], scene["reported"]
    [report] = Report.objects.all()
    client.post(
        reverse("admin:talk_report_changelist"),
        {"action": "resolve", "_selected_action": [report.pk]},
    )
    report.refresh_from_db()
    assert report.resolved_at is not None
    client.post(
        reverse("admin:talk_report_changelist"),
        {"action": "hide_reported", "_selected_action": [report.pk]},
    )
    reported.refresh_from_db()
    assert reported.hidden and reported.hidden_by == scene["staff"]
    other = scene["rows"][1]
    client.post(
        reverse("admin:talk_message_changelist"),
        {"action": "hide_messages", "_selected_action": [other.pk]},
    )
    other.refresh_from_db()
    assert other.hidden
    client.post(
        reverse("admin:talk_message_changelist"),
        {"action": "suspend_authors", "_selected_action": [other.pk]},
    )
    suspension = Suspension.objects.get(user=other.author)
    days = (suspension.until - timezone.now()).days
    assert 6 <= days <= 7 and services.suspended(other.author)
    assert client.get(reverse("admin:talk_suspension_changelist")).status_code == 200
