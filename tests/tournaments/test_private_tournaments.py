"""Private tournaments (tournaments.private_tournaments): created from the form, kept out of the
list, the pages and the API for all but their entrants, organiser and staff, signed up for by
the link the organiser shares (GET asks, only the POST signs up), the link renewed by the
organiser alone, never by a player who and the organiser blocked one another; their rounds'
games are private tables. Public tournaments are as before."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import blocks
from api import tokens
from api.models import Scope
from games.models import Game
from tournaments import private_tournaments, rounds
from tournaments.models import Tournament, TournamentPlayer
from tournaments.rounds import TournamentError

pytestmark = pytest.mark.django_db

Status = Tournament.Status


def a_tournament(creator: Any, *, private: bool = True, name: str = "Friends' cup") -> Tournament:
    """A Swiss tournament of 2-player tables, open for sign-up for two more days."""
    return rounds.tournament_create(
        creator=creator,
        name=name,
        kind="keltis",
        format=Tournament.Format.SWISS,
        rounds=2,
        signup_until=timezone.now() + timedelta(days=2),
        private=private,
    )


def link_path(tournament: Tournament) -> str:
    return reverse("tournament_private_join", args=[tournament.pk, tournament.join_secret])


def api(user: Any) -> Client:
    """A client that calls the API with a token of ``user``'s (both scopes)."""
    secret = tokens.token_create(user=user, name="t", scopes=[Scope.READ, Scope.PLAY]).secret
    return Client(headers={"Authorization": f"Bearer {secret}"})


def entered(tournament: Tournament, user: Any) -> bool:
    return TournamentPlayer.objects.filter(tournament=tournament, user=user).exists()


def test_the_create_form_makes_a_private_tournament_whose_organiser_gets_the_link(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna")
    client.force_login(anna)
    form = client.get(reverse("tournament_create")).content.decode()
    assert re.search(r'<input type="checkbox" name="private"', form)
    signup_until = timezone.localtime(timezone.now() + timedelta(days=3))
    answer = client.post(
        reverse("tournament_create"),
        {
            "name": "Friends' cup",
            "kind": "keltis",
            "format": Tournament.Format.SWISS,
            "table_size": 2,
            "rounds": 3,
            "days_per_move": 3,
            "bank_increment_hours": 0,
            "bank_cap_hours": 0,
            "signup_until": signup_until.strftime("%Y-%m-%dT%H:%M"),
            "round_days": 14,
            "private": "on",
        },
    )
    tournament = Tournament.objects.get(created_by=anna)
    assert answer.status_code == 302
    assert tournament.private and len(tournament.join_secret) >= 32
    page = client.get(reverse("tournament_detail", args=[tournament.pk])).content.decode()
    assert private_tournaments.join_url(tournament) in page
    assert private_tournaments.join_url(tournament).startswith("http")
    assert reverse("tournament_link_renew", args=[tournament.pk]) in page
    assert "Private tournament" in page
    # its organiser signs up on its page, as in a public one
    client.post(reverse("tournament_signup", args=[tournament.pk]))
    assert entered(tournament, anna)


def test_strangers_see_nothing_of_a_private_tournament_in_the_pages_or_the_api(
    client: Client, make_user: Any
) -> None:
    anna, bela, stranger = make_user("anna"), make_user("bela"), make_user("stranger")
    staff = make_user("staff", is_staff=True)
    tournament = a_tournament(anna)
    private_tournaments.signup_by_link(
        tournament_id=tournament.pk, secret=tournament.join_secret, user=bela
    )
    detail = reverse("tournament_detail", args=[tournament.pk])
    posts = [
        reverse("tournament_signup", args=[tournament.pk]),
        reverse("tournament_withdraw", args=[tournament.pk]),
        reverse("tournament_bot_add", args=[tournament.pk]),
        reverse("tournament_link_renew", args=[tournament.pk]),
    ]
    assert client.get(detail).status_code == 404  # logged out
    assert detail not in client.get(reverse("tournament_list")).content.decode()
    client.force_login(stranger)
    assert client.get(detail).status_code == 404
    assert detail not in client.get(reverse("tournament_list")).content.decode()
    assert [client.post(url, {"level": "normal"}).status_code for url in posts] == [404] * 4
    assert not entered(tournament, stranger)
    api_detail = f"/api/v1/tournaments/{tournament.pk}/"
    assert api(stranger).get(api_detail).status_code == 404
    assert api(stranger).post(f"{api_detail}join/").status_code == 404
    assert tournament.pk not in [t["id"] for t in api(stranger).get("/api/v1/tournaments/").json()]
    assert not entered(tournament, stranger)
    for viewer in (anna, bela, staff):  # its organiser, an entrant, staff
        client.force_login(viewer)
        assert client.get(detail).status_code == 200
        assert detail in client.get(reverse("tournament_list")).content.decode()
        assert api(viewer).get(api_detail).json()["private"] is True
        listed = [t["id"] for t in api(viewer).get("/api/v1/tournaments/").json()]
        assert tournament.pk in listed
    client.force_login(bela)  # an entrant sees no link to share
    assert tournament.join_secret not in client.get(detail).content.decode()


def test_the_link_asks_first_and_signs_up_only_on_the_post(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    tournament = a_tournament(anna)
    to_login = client.get(link_path(tournament))
    assert to_login.status_code == 302 and "next=" in to_login["Location"]
    client.force_login(bela)
    asked = client.get(link_path(tournament))
    page = asked.content.decode()
    assert asked.status_code == 200 and "Friends&#x27; cup" in page
    assert f'method="post" action="{link_path(tournament)}"' in page
    assert not entered(tournament, bela)  # a GET changes nothing
    signed = client.post(link_path(tournament))
    detail = reverse("tournament_detail", args=[tournament.pk])
    assert signed.status_code == 302 and signed["Location"] == detail
    assert entered(tournament, bela)
    assert client.get(detail).status_code == 200
    again = client.get(link_path(tournament))  # signed up already: to the tournament
    assert again.status_code == 302 and again["Location"] == detail
    # withdrawing from a private tournament leaves it out of sight: back to the list
    out = client.post(reverse("tournament_withdraw", args=[tournament.pk]))
    assert out.status_code == 302 and out["Location"] == reverse("tournament_list")
    assert client.get(detail).status_code == 404


def test_the_ordinary_sign_up_refuses_a_private_tournament_and_says_why(
    make_user: Any,
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    tournament = a_tournament(anna)
    with pytest.raises(TournamentError, match="private: players sign up by the link"):
        rounds.tournament_signup(tournament_id=tournament.pk, user=bela)
    assert not entered(tournament, bela)
    rounds.tournament_signup(tournament_id=tournament.pk, user=anna)  # its organiser may
    rounds.tournament_signup(tournament_id=tournament.pk, user=bela, admitted=True)
    assert entered(tournament, anna) and entered(tournament, bela)


def test_only_the_organiser_renews_the_link_and_the_old_or_a_forged_one_changes_nothing(
    client: Client, make_user: Any
) -> None:
    anna, bela, cili = make_user("anna"), make_user("bela"), make_user("cili")
    tournament = a_tournament(anna)
    rounds.tournament_signup(tournament_id=tournament.pk, user=bela, admitted=True)
    old, old_secret = link_path(tournament), tournament.join_secret
    renew = reverse("tournament_link_renew", args=[tournament.pk])
    client.force_login(bela)  # an entrant, not its organiser
    refused = client.post(renew, follow=True)
    assert "Only the organiser of a private tournament can renew its link." in (
        refused.content.decode()
    )
    tournament.refresh_from_db()
    assert tournament.join_secret == old_secret
    assert client.get(renew).status_code == 405  # a GET renews nothing
    client.force_login(anna)
    renewed = client.post(renew, follow=True)
    assert "The tournament has a new link: the old one no longer works." in (
        renewed.content.decode()
    )
    tournament.refresh_from_db()
    assert tournament.join_secret != old_secret and link_path(tournament) != old
    client.force_login(cili)
    for answer in (client.get(old), client.post(old)):
        assert answer.status_code == 404
        assert "it may have been renewed by its organiser" in answer.content.decode()
    forged = reverse("tournament_private_join", args=[tournament.pk, "x" * 32])
    assert client.post(forged).status_code == 404
    unknown = reverse("tournament_private_join", args=[9999, tournament.join_secret])
    assert client.post(unknown).status_code == 404
    with pytest.raises(private_tournaments.LinkNotValid):
        private_tournaments.signup_by_link(
            tournament_id=tournament.pk, secret=old_secret, user=cili
        )
    assert not entered(tournament, cili)
    assert client.post(link_path(tournament)).status_code == 302
    assert entered(tournament, cili)


def test_a_public_tournament_has_no_link(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    public = a_tournament(anna, private=False)
    assert public.join_secret == ""
    client.force_login(bela)
    forged = reverse("tournament_private_join", args=[public.pk, "x" * 32])
    assert client.post(forged).status_code == 404
    assert not entered(public, bela)
    with pytest.raises(TournamentError):
        private_tournaments.link_renew(tournament_id=public.pk, user=anna)


def test_a_player_and_the_organiser_who_blocked_one_another_do_not_meet_there(
    client: Client, make_user: Any
) -> None:
    anna, bela, cili = make_user("anna"), make_user("bela"), make_user("cili")
    tournament = a_tournament(anna)
    blocks.block(blocker=anna, blocked=bela)  # the organiser blocked bela
    blocks.block(blocker=cili, blocked=anna)  # cili blocked the organiser
    for player in (bela, cili):
        client.force_login(player)
        refused = client.post(link_path(tournament))
        assert refused.status_code == 409
        assert "You cannot sign up for this tournament." in refused.content.decode()
        assert not entered(tournament, player)


def test_after_sign_up_closes_the_link_signs_nobody_up_and_is_not_shown(
    client: Client, make_user: Any
) -> None:
    anna, cili = make_user("anna"), make_user("cili")
    tournament = a_tournament(anna)
    Tournament.objects.filter(pk=tournament.pk).update(
        signup_until=timezone.now() - timedelta(minutes=1)
    )
    client.force_login(cili)
    page = client.get(link_path(tournament))
    assert page.status_code == 200
    assert f'action="{link_path(tournament)}"' not in page.content.decode()
    refused = client.post(link_path(tournament))
    assert refused.status_code == 409 and "closed" in refused.content.decode()
    assert not entered(tournament, cili)
    client.force_login(anna)
    detail = client.get(reverse("tournament_detail", args=[tournament.pk])).content.decode()
    assert tournament.join_secret not in detail
    with pytest.raises(TournamentError, match="closed"):
        private_tournaments.link_renew(tournament_id=tournament.pk, user=anna)


def started(tournament: Tournament, players: list[Any]) -> Tournament:
    for player in players:
        rounds.tournament_signup(tournament_id=tournament.pk, user=player, admitted=True)
    rounds.tournaments_advance(now=tournament.signup_until + timedelta(minutes=1))
    tournament.refresh_from_db()
    assert tournament.status == Status.RUNNING
    return tournament


def test_the_rounds_of_a_private_tournament_are_private_tables(
    client: Client, make_user: Any
) -> None:
    anna, bela, cili, dora = (make_user(n) for n in ("anna", "bela", "cili", "dora"))
    tournament = started(a_tournament(anna), [anna, bela, cili, dora])
    games = list(Game.objects.filter(tournament_link__round__tournament=tournament))
    assert len(games) == 2 and all(game.private for game in games)
    stranger = make_user("stranger")
    client.force_login(stranger)
    for game in games:
        assert client.get(reverse("game_detail", args=[game.pk])).status_code == 404
    seated = games[0].seats.exclude(user=None).first().user
    client.force_login(seated)
    assert client.get(reverse("game_detail", args=[games[0].pk])).status_code == 200
    assert client.get(reverse("tournament_detail", args=[tournament.pk])).status_code == 200
    # while running, the organiser's page shows no link to share (sign-up is over)
    client.force_login(anna)
    page = client.get(reverse("tournament_detail", args=[tournament.pk])).content.decode()
    assert tournament.join_secret not in page


def test_a_public_tournament_is_as_before(client: Client, make_user: Any) -> None:
    anna, bela, cili = make_user("anna"), make_user("bela"), make_user("cili")
    tournament = a_tournament(anna, private=False, name="Open cup")
    detail = reverse("tournament_detail", args=[tournament.pk])
    assert client.get(detail).status_code == 200  # logged out
    assert detail in client.get(reverse("tournament_list")).content.decode()
    assert api(cili).get(f"/api/v1/tournaments/{tournament.pk}/").json()["private"] is False
    client.force_login(bela)
    assert "Private tournament" not in client.get(detail).content.decode()
    client.post(reverse("tournament_signup", args=[tournament.pk]))
    assert entered(tournament, bela)
    blocks.block(blocker=anna, blocked=cili)  # as before, a public one does not ask
    assert api(cili).post(f"/api/v1/tournaments/{tournament.pk}/join/").status_code == 200
    started(tournament, [])
    games = Game.objects.filter(tournament_link__round__tournament=tournament)
    assert games.exists() and not games.filter(private=True).exists()
