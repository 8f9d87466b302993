"""Clubs (tournaments.clubs): leagues verified players create and run, private or public;
invitations to them (friends.clubs), and private clubs hidden from everyone outside them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import blocks
from accounts.models import User
from api import tokens
from api.models import Scope
from friends import clubs as friend_clubs
from friends import invitations
from friends.models import Invitation
from games.models import Game
from tournaments import clubs, leagues
from tournaments.leagues import LeagueError, league_join
from tournaments.models import League, LeagueMember, Season

pytestmark = pytest.mark.django_db

CLUB = {"name": "Friday friends", "kind": "keltis-cards", "min_players": 2, "max_players": 2}


@pytest.fixture
def verified(make_user: Callable[..., User]) -> Callable[..., User]:
    """A player whose address is verified, as every player who signed up and confirmed."""

    def make(name: str | None = None, **fields: Any) -> User:
        user = make_user(name, **fields)
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return user

    return make


def club(creator: User, private: bool = True, **changes: Any) -> League:
    return clubs.club_create(creator=creator, private=private, **{**CLUB, **changes})


def invited_member(league: League, inviter: User, user: User) -> LeagueMember:
    """``user`` invited by name and accepting, the way into a private club."""
    (invitation,) = friend_clubs.club_invite(
        league_id=league.pk, inviter=inviter, texts=[user.username]
    )
    invitations.accept(invitation_id=invitation.pk, user=user)
    return LeagueMember.objects.get(league=league, user=user)


def api_get(user: User, path: str) -> Any:
    secret = tokens.token_create(user=user, name="t", scopes=[Scope.READ]).secret
    return Client().get(path, headers={"Authorization": f"Bearer {secret}"})


# -- creating -------------------------------------------------------------------------------------
def test_a_verified_player_creates_a_club_and_organises_it(verified: Any) -> None:
    anna = verified("anna")
    league = club(anna, private=True)
    assert (league.created_by, league.private, league.active) == (anna, True, True)
    assert list(league.organisers.all()) == [anna]
    assert leagues.may_organise(anna, league)
    assert clubs.organisers_of(league) == [anna]


def test_an_unverified_player_or_a_bot_account_cannot_create_one(
    make_user: Any, verified: Any, client: Client
) -> None:
    unverified = make_user("unverified")
    EmailAddress.objects.create(user=unverified, email=unverified.email, verified=False)
    bot = verified("botty")
    User.objects.filter(pk=bot.pk).update(is_bot=True)
    bot.refresh_from_db()
    for player in (unverified, bot):
        with pytest.raises(LeagueError, match="verified email address"):
            club(player)
    client.force_login(unverified)
    assert client.get(reverse("league_create")).status_code == 403
    assert client.post(reverse("league_create"), {**CLUB, "days_per_move": 3}).status_code == 403
    assert not League.objects.exists()


def test_a_player_runs_at_most_the_limit_of_clubs(verified: Any, settings: Any) -> None:
    settings.MAX_CLUBS_PER_PLAYER = 2
    anna = verified("anna")
    first = club(anna)
    club(anna, private=False)
    with pytest.raises(LeagueError, match="at most 2 clubs"):
        club(anna)
    assert League.objects.count() == 2
    clubs.league_close(league_id=first.pk, by=anna)  # a closed club no longer counts
    club(anna)
    staff = verified("staff", is_staff=True)
    for _ in range(3):
        club(staff)  # staff are not limited


def test_the_create_page_for_a_verified_player(verified: Any, client: Client) -> None:
    anna = verified("anna")
    client.force_login(anna)
    listing = client.get(reverse("league_list")).content.decode()
    assert f'href="{reverse("league_create")}"' in listing and "Create a club" in listing
    page = client.get(reverse("league_create")).content.decode()
    assert "Private club" in page and "up to 3 clubs at once" in page
    data = {**CLUB, "days_per_move": "3", "bank_increment_hours": "0", "bank_cap_hours": "0",
            "season_days": "90", "private": "on"}  # fmt: skip
    response = client.post(reverse("league_create"), data)
    league = League.objects.get()
    assert response["Location"] == reverse("league_detail", args=[league.pk])
    assert (league.private, league.created_by) == (True, anna)
    assert list(league.organisers.all()) == [anna]


def test_the_create_page_says_when_the_limit_is_reached(
    verified: Any, client: Client, settings: Any
) -> None:
    settings.MAX_CLUBS_PER_PLAYER = 1
    anna = verified("anna")
    club(anna)
    client.force_login(anna)
    assert "at most 1 club at once" in client.get(reverse("league_create")).content.decode()
    data = {**CLUB, "name": "Another", "days_per_move": "3", "bank_increment_hours": "0",
            "bank_cap_hours": "0", "season_days": "90"}  # fmt: skip
    response = client.post(reverse("league_create"), data)
    assert response.status_code == 200 and "at most 1 club at once" in response.content.decode()
    assert League.objects.count() == 1


# -- who sees a private club ----------------------------------------------------------------------
def test_a_private_club_is_hidden_from_strangers(
    verified: Any, make_user: Any, client: Client
) -> None:
    anna, stranger = verified("anna"), make_user("stranger")
    league = club(anna, name="Secret cards")
    Season.objects.create(
        league=league, number=1, starts_at=timezone.now(), ends_at=timezone.now() + timedelta(1)
    )
    detail = reverse("league_detail", args=[league.pk])
    for viewer in (None, stranger):
        if viewer is not None:
            client.force_login(viewer)
        assert "Secret cards" not in client.get(reverse("league_list")).content.decode()
        assert client.get(detail).status_code == 404
        assert client.get(detail + "?season=1").status_code == 404
    assert client.post(reverse("league_join", args=[league.pk])).status_code == 404
    assert client.get(reverse("club_invite", args=[league.pk])).status_code == 404
    assert not LeagueMember.objects.exists()
    with pytest.raises(LeagueError, match="private"):  # the service refuses too
        league_join(league_id=league.pk, user=stranger)
    # the API: not listed, not found
    assert "Secret cards" not in api_get(stranger, "/api/v1/leagues/").content.decode()
    assert api_get(stranger, f"/api/v1/leagues/{league.pk}/").status_code == 404


def test_members_organisers_and_staff_see_a_private_club(
    verified: Any, make_user: Any, client: Client
) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna, name="Secret cards")
    invited_member(league, anna, bela)
    detail = reverse("league_detail", args=[league.pk])
    for viewer in (anna, bela, make_user("staff", is_staff=True)):
        client.force_login(viewer)
        assert client.get(detail).status_code == 200
    client.force_login(bela)
    listing = client.get(reverse("league_list")).content.decode()
    assert "Secret cards" in listing and "Private club" in listing
    assert "Secret cards" in api_get(bela, "/api/v1/leagues/").content.decode()
    assert api_get(bela, f"/api/v1/leagues/{league.pk}/").status_code == 200
    # a member who leaves no longer sees it
    leagues.league_leave(league_id=league.pk, user=bela)
    assert client.get(detail).status_code == 404


def test_the_organiser_joins_their_own_private_club(verified: Any, client: Client) -> None:
    anna = verified("anna")
    league = club(anna)
    client.force_login(anna)
    assert "Join" in client.get(reverse("league_detail", args=[league.pk])).content.decode()
    client.post(reverse("league_join", args=[league.pk]))
    assert LeagueMember.objects.filter(league=league, user=anna, active=True).exists()


def test_a_public_club_is_listed_and_open_to_all(verified: Any, make_user: Any) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna, private=False, name="Open club")
    assert league in leagues.active_leagues()
    league_join(league_id=league.pk, user=bela)


def test_a_player_and_the_clubs_creator_who_blocked_each_other_stay_apart(
    verified: Any, make_user: Any
) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna, private=False)
    blocks.block(blocker=anna, blocked=bela)
    with pytest.raises(LeagueError):
        league_join(league_id=league.pk, user=bela)
    with pytest.raises(LeagueError):
        league_join(league_id=league.pk, user=bela, admitted=True)


# -- organisers -----------------------------------------------------------------------------------
def test_organisers_add_and_remove_co_organisers(verified: Any, make_user: Any) -> None:
    anna, bela, cecil, dora = verified("anna"), make_user("bela"), make_user("cecil"), make_user()
    league = club(anna)
    with pytest.raises(LeagueError, match="not a member"):
        clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    invited_member(league, anna, bela)
    invited_member(league, anna, cecil)
    with pytest.raises(LeagueError, match="organisers"):  # a member is not an organiser
        clubs.organiser_add(league_id=league.pk, by=cecil, user=cecil)
    with pytest.raises(LeagueError, match="organisers"):  # nor is a stranger
        clubs.organiser_remove(league_id=league.pk, by=dora, user=bela)
    clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    assert leagues.may_organise(bela, league)
    clubs.organiser_add(league_id=league.pk, by=bela, user=cecil)  # a co-organiser may too
    assert set(league.organisers.all()) == {anna, bela, cecil}
    with pytest.raises(LeagueError, match="creator"):
        clubs.organiser_remove(league_id=league.pk, by=bela, user=anna)
    clubs.organiser_remove(league_id=league.pk, by=cecil, user=cecil)  # stepping down
    clubs.organiser_remove(league_id=league.pk, by=anna, user=bela)
    assert list(league.organisers.all()) == [anna]
    assert clubs.organisers_of(league) == [anna]
    # only the creator (or staff) closes the club
    clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    with pytest.raises(LeagueError, match="creator"):
        clubs.league_close(league_id=league.pk, by=bela)


def test_organisers_remove_a_member(verified: Any, make_user: Any) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    invited_member(league, anna, bela)
    with pytest.raises(LeagueError, match="creator"):
        clubs.member_remove(league_id=league.pk, by=anna, user=anna)
    clubs.member_remove(league_id=league.pk, by=anna, user=bela)
    assert not leagues.may_view(bela, league)
    with pytest.raises(LeagueError, match="private"):  # back only by a new invitation
        league_join(league_id=league.pk, user=bela)


def test_the_league_page_lets_organisers_manage_members(
    verified: Any, make_user: Any, client: Client
) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    invited_member(league, anna, bela)
    client.force_login(anna)
    html = client.get(reverse("league_detail", args=[league.pk])).content.decode()
    assert "Members and organisers" in html and reverse("club_invite", args=[league.pk]) in html
    assert reverse("league_organiser_add", args=[league.pk]) in html
    client.post(reverse("league_organiser_add", args=[league.pk]), {"user": bela.pk})
    assert leagues.may_organise(bela, league)
    client.post(reverse("league_organiser_remove", args=[league.pk]), {"user": bela.pk})
    assert not leagues.may_organise(bela, league)
    client.post(reverse("league_member_remove", args=[league.pk]), {"user": bela.pk})
    assert not LeagueMember.objects.filter(league=league, user=bela, active=True).exists()
    client.post(reverse("league_close", args=[league.pk]))
    league.refresh_from_db()
    assert not league.active
    # a member who does not organise sees no such buttons, and their posts change nothing
    other = club(anna, name="Second")
    invited_member(other, anna, bela)
    client.force_login(bela)
    html = client.get(reverse("league_detail", args=[other.pk])).content.decode()
    assert reverse("league_organiser_add", args=[other.pk]) not in html
    client.post(reverse("league_organiser_add", args=[other.pk]), {"user": bela.pk})
    client.post(reverse("league_close", args=[other.pk]))
    other.refresh_from_db()
    assert other.active and not leagues.may_organise(bela, other)


# -- invitations ----------------------------------------------------------------------------------
def test_invitations_by_name_and_by_address(verified: Any, make_user: Any) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    made = friend_clubs.club_invite(
        league_id=league.pk, inviter=anna, texts=["bela", "Friend@Example.org"]
    )
    rows = Invitation.objects.filter(league=league).order_by("pk")
    assert list(rows) == made
    assert [(row.invitee, row.email, row.game_id) for row in rows] == [
        (bela, "", None),
        (None, "friend@example.org", None),
    ]
    newcomer = make_user("newcomer")  # signed up from the address's link
    invitations.accept(invitation_id=made[1].pk, user=newcomer, secret=made[1].secret)
    invitations.accept(invitation_id=made[0].pk, user=bela)
    assert set(LeagueMember.objects.filter(league=league).values_list("user", flat=True)) == {
        bela.pk,
        newcomer.pk,
    }
    assert leagues.may_view(newcomer, league)


def test_invitations_refused_change_nothing(verified: Any, make_user: Any) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    invited_member(league, anna, bela)
    count = Invitation.objects.count()
    for texts in (["bela"], ["nobody-by-that-name"], ["anna"], ["not an @ address"]):
        with pytest.raises(invitations.InvitationError):
            friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=texts)
    friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["x@example.org"])
    with pytest.raises(invitations.CannotInvite, match="invited already"):
        friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["X@example.org"])
    # a member who does not run the club
    with pytest.raises(invitations.CannotInvite, match="organisers"):
        friend_clubs.club_invite(league_id=league.pk, inviter=bela, texts=["y@example.org"])
    assert Invitation.objects.count() == count + 1


# -- games ----------------------------------------------------------------------------------------
def test_a_private_clubs_matchmade_games_are_private(verified: Any, make_user: Any) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    league_join(league_id=league.pk, user=anna, max_games=1)
    invited_member(league, anna, bela)
    leagues.league_set_max_games(league_id=league.pk, user=bela, max_games=1)
    public = club(anna, private=False, name="Open")
    carl, dora = make_user("carl"), make_user("dora")
    for user in (carl, dora):
        league_join(league_id=public.pk, user=user, max_games=1)
    assert leagues.matchmaker_pass(now=timezone.now()) == 2
    mine = Game.objects.get(season_link__season__league=league)
    assert mine.private and set(mine.seats.values_list("user", flat=True)) == {anna.pk, bela.pk}
    assert not Game.objects.get(season_link__season__league=public).private


def test_staff_leagues_are_unchanged(make_user: Any, client: Client) -> None:
    """A league staff opened before clubs: public, no creator, no organisers, joined freely."""
    league = League.objects.create(name="Old league", kind="keltis-cards")
    assert (league.private, league.created_by, list(league.organisers.all())) == (False, None, [])
    bela = make_user("bela")
    league_join(league_id=league.pk, user=bela)
    assert league in leagues.active_leagues()
    assert leagues.may_view(None, league) and not leagues.may_organise(bela, league)
    html = client.get(reverse("league_detail", args=[league.pk])).content.decode()
    assert "Members and organisers" not in html
    staff = make_user("staff", is_staff=True)
    assert leagues.may_organise(staff, league)


# -- settings -------------------------------------------------------------------------------------
def test_organisers_change_the_settings_but_not_the_game(
    verified: Any, make_user: Any, client: Client
) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    invited_member(league, anna, bela)
    clubs.league_update(league_id=league.pk, by=anna, days_per_move=5, private=False)
    league.refresh_from_db()
    assert (league.days_per_move, league.private, league.kind) == (5, False, "keltis-cards")
    with pytest.raises(LeagueError, match="organisers"):
        clubs.league_update(league_id=league.pk, by=bela, days_per_move=3)
    with pytest.raises(LeagueError):  # the same rules as at creation
        clubs.league_update(league_id=league.pk, by=anna, min_players=4, max_players=2)
    with pytest.raises(ValueError):
        clubs.league_update(league_id=league.pk, by=anna, kind="keltis")
    url = reverse("league_edit", args=[league.pk])
    client.force_login(bela)
    assert client.get(url).status_code == 403
    client.force_login(anna)
    assert url in client.get(reverse("league_detail", args=[league.pk])).content.decode()
    page = client.get(url)
    assert page.status_code == 200 and "kind" not in page.context["form"].fields
    data = {"name": "Renamed", "min_players": "2", "max_players": "3", "days_per_move": "3",
            "bank_increment_hours": "0", "bank_cap_hours": "0", "season_days": "60",
            "private": "on"}  # fmt: skip
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()
    league.refresh_from_db()
    assert (league.name, league.max_players, league.season_days, league.private) == (
        "Renamed", 3, 60, True,
    )  # fmt: skip
    bad = client.post(url, {**data, "min_players": "4", "max_players": "2"})
    assert bad.status_code == 200
    league.refresh_from_db()
    assert league.max_players == 3


def test_a_co_organiser_steps_down_from_the_league_page(
    verified: Any, make_user: Any, client: Client
) -> None:
    anna, bela = verified("anna"), make_user("bela")
    league = club(anna)
    invited_member(league, anna, bela)
    clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    client.force_login(bela)
    html = client.get(reverse("league_detail", args=[league.pk])).content.decode()
    assert "Stop organising this club" in html and "Close the club" not in html
    client.post(reverse("league_organiser_remove", args=[league.pk]), {"user": bela.pk})
    assert not leagues.may_organise(bela, league)
    client.force_login(anna)  # the creator has no such button, but may close the club
    html = client.get(reverse("league_detail", args=[league.pk])).content.decode()
    assert "Stop organising this club" not in html and "Close the club" in html
