"""The invitation pages: creating a table with people invited, the email's link (read, accept,
decline, forged, used, expired; a newcomer signing up on the way), a member's answers from
their games page, the creator's actions on the open table's page, the lobby's held seats and
the challenge links."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import blocks
from accounts.models import User
from friends import invitations
from friends.models import Invitation, InvitationStatus
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase 42"


def create_data(**overrides: Any) -> dict[str, Any]:
    data = {"kind": "keltis", "player_count": "2", "days_per_move": "3"}
    data.update(overrides)
    return data


def logged_in(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


def table(creator: Any, invitees: list[str], players: int = 2, **kwargs: Any) -> Game:
    return invitations.game_create_with_invitations(
        creator=creator, invitees=invitees, kind="keltis", player_count=players, **kwargs
    )


def link(invitation: Invitation, secret: str | None = None) -> str:
    return reverse("invitation_answer", args=[invitation.pk, secret or invitation.secret])


def verified(user: Any) -> Any:
    """A player allauth lets sign in (mandatory verification)."""
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    user.set_password(PASSWORD)
    user.save()
    return user


# -- the create page ------------------------------------------------------------------------------
def test_create_with_invitees_holds_their_seats_and_says_so(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    data = create_data(
        player_count="4",
        seat_1="invite",
        invitee_1="bela",
        seat_2="",
        invitee_2="Friend@Example.org",  # a name on a seat left waiting invites too
        seat_3="easy",
    )
    response = logged_in(client, anna).post(reverse("game_create"), data, follow=True)
    game = Game.objects.get()
    assert response.redirect_chain[-1][0] == f"/games/{game.pk}/"
    assert "Your invitations are on their way." in response.content.decode()
    rows = Invitation.objects.filter(game=game).order_by("pk")
    assert [(row.invitee, row.email) for row in rows] == [(bela, ""), (None, "friend@example.org")]
    assert [seat.bot for seat in game.seats.order_by("index")] == ["", "easy"]
    assert game.status == GameStatus.OPEN


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"seat_1": "invite", "invitee_1": "nobody"}, "There is no player called"),
        ({"seat_1": "invite", "invitee_1": "anna"}, "You cannot invite yourself."),
        ({"seat_1": "invite", "invitee_1": "not@an@address"}, "is not an email address"),
        ({"seat_1": "invite", "invitee_1": ""}, "Give the display name or the email address"),
        ({"seat_1": "easy", "invitee_1": "bela"}, "A bot takes this seat"),
        ({"seat_2": "invite", "invitee_2": "bela"}, "has no seat for this player"),
    ],
)
def test_refused_invitees_are_shown_on_the_form_and_nothing_is_made(
    client: Client, make_user: Any, overrides: dict[str, str], error: str
) -> None:
    anna = make_user("anna")
    make_user("bela")
    response = logged_in(client, anna).post(reverse("game_create"), create_data(**overrides))
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Game.objects.exists() and not Invitation.objects.exists()


def test_a_blocked_invitee_is_refused_on_the_form(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    blocks.block(blocker=bela, blocked=anna)
    data = create_data(seat_1="invite", invitee_1="bela")
    response = logged_in(client, anna).post(reverse("game_create"), data)
    assert "do not play together" in response.content.decode()
    assert not Game.objects.exists()


def test_the_rated_preview_counts_an_invited_seat_as_a_person(
    client: Client, make_user: Any
) -> None:
    page = logged_in(client, make_user()).get(reverse("game_create")).content.decode()
    assert 'value="invite"' in page and 'name="invitee_1"' in page
    data = create_data(seat_1="invite", invitee_1="")
    form = client.post(reverse("game_create"), data).context["form"]
    assert form.rated_preview().rated  # two people: rated, as the script says too


def test_challenge_prefills_a_game_of_two_with_the_player_invited(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), make_user("bela", display_name="Béla B")
    response = logged_in(client, anna).get(reverse("game_create") + "?invite=bela")
    form = response.context["form"]
    assert form["player_count"].value() == 2
    assert form["seat_1"].value() == "invite" and form["invitee_1"].value() == "Béla B"
    ignored = client.get(reverse("game_create") + "?invite=nobody").context["form"]
    assert ignored["invitee_1"].value() in (None, "")
    assert bela.pk  # the GET created nothing
    assert not Game.objects.exists()


# -- the link from the email ----------------------------------------------------------------------
def test_the_link_page_shows_the_table_and_changes_nothing(client: Client, make_user: Any) -> None:
    anna = make_user("anna", display_name="Anna K")
    game = table(anna, ["friend@example.org"], players=3, days_per_move=5)
    invitation = Invitation.objects.get()
    response = client.get(link(invitation))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Anna K invites you to a game of" in page and "for 3 players" in page
    assert "5 days per move" in page
    assert "Sign up and take the seat" in page and "Sign in and take the seat" in page
    assert "friend@example.org" not in page  # an address is shown to its inviter only
    invitation.refresh_from_db()
    assert invitation.pending and game.seats.count() == 1


def test_decline_by_the_link_needs_no_account(client: Client, make_user: Any) -> None:
    anna = make_user("anna")
    game = table(anna, ["friend@example.org"])
    invitation = Invitation.objects.get()
    response = client.post(link(invitation), {"answer": "decline"})
    assert response.status_code == 200
    assert "You declined the invitation." in response.content.decode()
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.DECLINED
    again = client.post(link(invitation), {"answer": "decline"})
    assert again.status_code == 410 and "declined already" in again.content.decode()
    assert Game.objects.get(pk=game.pk).status == GameStatus.OPEN


def test_a_signed_in_player_accepts_by_the_link_and_lands_in_the_game(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = table(anna, ["bela"])
    invitation = Invitation.objects.get()
    response = logged_in(client, bela).post(link(invitation), {"answer": "accept"})
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING


def test_a_member_invitation_is_not_for_someone_else(client: Client, make_user: Any) -> None:
    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    table(anna, ["bela"])
    invitation = Invitation.objects.get()
    page = logged_in(client, cecil).get(link(invitation)).content.decode()
    assert "This invitation is for another player." in page
    client.post(link(invitation), {"answer": "accept"}, follow=True)
    invitation.refresh_from_db()
    assert invitation.pending and bela.pk


@pytest.mark.parametrize("case", ["forged", "used", "withdrawn", "expired"])
def test_a_link_that_no_longer_works_says_why_and_changes_nothing(
    client: Client, make_user: Any, case: str
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = table(anna, ["friend@example.org"], players=3)
    invitation = Invitation.objects.get()
    secret = invitation.secret
    if case == "forged":
        secret = "x" * 32
    elif case == "used":
        invitations.accept(invitation_id=invitation.pk, user=bela, secret=secret)
    elif case == "withdrawn":
        invitations.withdraw(invitation_id=invitation.pk, user=anna)
    else:
        Invitation.objects.filter(pk=invitation.pk).update(
            expires_at=timezone.now() - timedelta(minutes=1)
        )
    before = (Invitation.objects.get().status, game.seats.count())
    expected = {
        "forged": (400, "This invitation link is not valid."),
        "used": (410, "accepted already"),
        "withdrawn": (410, "was withdrawn"),
        "expired": (410, "has expired"),
    }[case]
    for response in (
        client.get(link(invitation, secret)),
        client.post(link(invitation, secret), {"answer": "decline"}),
    ):
        assert response.status_code == expected[0]
        assert expected[1] in response.content.decode()
    assert (Invitation.objects.get().status, game.seats.count()) == before


def test_a_newcomer_signs_up_from_the_link_and_lands_seated_with_the_address_verified(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna")
    game = table(anna, ["Friend@Example.org"])
    invitation = Invitation.objects.get()
    page_url = link(invitation)
    response = client.post(page_url, {"answer": "signup"})
    assert response.status_code == 302
    signup_url = response["Location"]
    assert signup_url.startswith(reverse("account_signup"))
    assert "email=friend%40example.org" in signup_url
    form = client.get(signup_url).context["form"]
    assert form["email"].value() == "friend@example.org"
    assert Invitation.objects.get().pending  # nothing is accepted before the account exists

    response = client.post(
        signup_url,
        {
            "email": "friend@example.org",
            "display_name": "Friend F",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        follow=True,
    )
    newcomer = User.objects.get(email="friend@example.org")
    assert EmailAddress.objects.get(user=newcomer).verified  # the link proved the address
    assert response.redirect_chain[-1][0] == f"/games/{game.pk}/"
    assert response.context["user"] == newcomer  # signed in at once
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert [seat.user for seat in game.seats.order_by("index")] == [anna, newcomer]
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.ACCEPTED and invitation.invitee == newcomer


def test_a_newcomer_signing_up_with_another_address_verifies_it_first(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna")
    table(anna, ["friend@example.org"])
    invitation = Invitation.objects.get()
    signup_url = client.post(link(invitation), {"answer": "signup"})["Location"]
    client.post(
        signup_url,
        {
            "email": "other@example.org",
            "display_name": "Other O",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    newcomer = User.objects.get(email="other@example.org")
    assert not EmailAddress.objects.get(user=newcomer).verified  # not the invited address
    assert Invitation.objects.get().pending  # not signed in yet: nothing accepted


def test_a_member_signs_in_from_the_link_and_lands_in_the_game(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), verified(make_user("bela"))
    game = table(anna, ["bela"])
    invitation = Invitation.objects.get()
    page = client.get(link(invitation)).content.decode()
    assert "Sign up and take the seat" not in page  # a member by name has an account
    login_url = client.post(link(invitation), {"answer": "login"})["Location"]
    assert login_url.startswith(reverse("account_login"))
    response = client.post(login_url, {"login": bela.email, "password": PASSWORD}, follow=True)
    assert response.redirect_chain[-1][0] == f"/games/{game.pk}/"
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING


def test_address_invitations_join_the_list_of_whoever_verifies_the_address(
    make_user: Any,
) -> None:
    from friends.invitation_accounts import attach_address_invitations

    anna, newcomer = make_user("anna"), make_user("newcomer")
    table(anna, ["friend@example.org"])
    assert invitations.pending_for(newcomer) == []
    assert attach_address_invitations(newcomer, "Friend@example.org") == 1
    assert [row.email for row in invitations.pending_for(newcomer)] == ["friend@example.org"]


# -- my games -------------------------------------------------------------------------------------
def test_my_games_lists_invitations_and_the_member_answers_there(
    client: Client, make_user: Any
) -> None:
    anna = make_user("anna", display_name="Anna K")
    bela = make_user("bela")
    game = table(anna, ["bela"])
    other = table(anna, ["bela"])
    page = logged_in(client, bela).get(reverse("my_games")).content.decode()
    assert "Invitations for you" in page and "Invited by Anna K" in page
    (first, second) = Invitation.objects.filter(invitee=bela).order_by("pk")
    response = client.post(reverse("invitation_accept", args=[first.pk]))
    assert response["Location"] == f"/games/{game.pk}/"
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING
    response = client.post(
        reverse("invitation_decline", args=[second.pk]), {"next": reverse("my_games")}
    )
    assert response["Location"] == reverse("my_games")
    second.refresh_from_db()
    assert second.status == InvitationStatus.DECLINED
    assert Game.objects.get(pk=other.pk).status == GameStatus.OPEN


def test_a_member_answer_needs_the_member_invited(client: Client, make_user: Any) -> None:
    anna, cecil = make_user("anna"), make_user("cecil")
    make_user("bela")
    table(anna, ["bela"])
    invitation = Invitation.objects.get()
    logged_in(client, cecil).post(reverse("invitation_accept", args=[invitation.pk]))
    client.post(reverse("invitation_decline", args=[invitation.pk]))
    assert Invitation.objects.get().pending


# -- the open table's page ------------------------------------------------------------------------
def test_the_table_page_shows_invitations_addresses_to_the_inviter_only(
    client: Client, make_user: Any
) -> None:
    anna, bela, watcher = make_user("anna"), make_user("bela", display_name="Béla B"), make_user()
    game = table(anna, ["Béla B", "friend@example.org"], players=4)
    url = f"/games/{game.pk}/"
    mine = logged_in(client, anna).get(url).content.decode()
    assert "friend@example.org" in mine and "Béla B" in mine and "Withdraw" in mine
    assert "Invite someone" in mine and "Give a free seat to a bot" in mine
    theirs = logged_in(client, watcher).get(url).content.decode()
    assert "friend@example.org" not in theirs and "someone invited by email" in theirs
    assert "Withdraw" not in theirs and "Invite someone" not in theirs
    invited = logged_in(client, bela).get(url).content.decode()
    assert reverse("invitation_accept", args=[Invitation.objects.get(invitee=bela).pk]) in invited
    assert "friend@example.org" not in invited


def test_the_creator_withdraws_invites_and_seats_a_bot(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = table(anna, ["friend@example.org"], players=3)
    invitation = Invitation.objects.get()
    logged_in(client, anna)
    response = client.post(reverse("invitation_withdraw", args=[invitation.pk]))
    assert response["Location"] == f"/games/{game.pk}/"
    assert Invitation.objects.get().status == InvitationStatus.WITHDRAWN
    client.post(reverse("table_invite", args=[game.pk]), {"invitee": "bela"})
    assert Invitation.objects.get(invitee=bela).pending
    client.post(reverse("table_seat_bot", args=[game.pk]), {"level": "strong"})
    game.refresh_from_db()
    # Béla's invitation holds the last seat: the bot took the other one
    assert [seat.bot for seat in game.seats.order_by("index")] == ["", "strong"]
    response = client.post(
        reverse("table_seat_bot", args=[game.pk]), {"level": "strong"}, follow=True
    )
    assert "This table has no free seat." in response.content.decode()
    assert game.seats.count() == 2


def test_only_the_creator_acts_on_the_table(client: Client, make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = table(anna, ["friend@example.org"], players=3)
    invitation = Invitation.objects.get()
    logged_in(client, bela)
    client.post(reverse("invitation_withdraw", args=[invitation.pk]))
    client.post(reverse("table_invite", args=[game.pk]), {"invitee": "anna"})
    client.post(reverse("table_seat_bot", args=[game.pk]), {"level": "easy"})
    assert Invitation.objects.get().pending and game.seats.count() == 1
    assert Invitation.objects.count() == 1


# -- the lobby ------------------------------------------------------------------------------------
def test_the_lobby_offers_no_join_to_seats_kept_for_the_invited(
    client: Client, make_user: Any
) -> None:
    anna, stranger = make_user("anna"), make_user("stranger")
    make_user("bela")
    held = table(anna, ["bela"])
    free = game_create(creator=make_user(), kind="keltis", player_count=3)
    response = logged_in(client, stranger).get(reverse("lobby"))
    rows = {row.game.pk: row for row in response.context["open_games"]}
    assert not rows[held.pk].can_join and rows[held.pk].invited == 1
    assert rows[free.pk].can_join
    page = response.content.decode()
    assert "1 invited" in page and "Seats kept for the players invited" in page
    assert reverse("game_join", args=[held.pk]) not in page


def test_the_lobby_counts_held_seats_in_a_constant_number_of_queries(
    client: Client, make_user: Any
) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("lobby"))
        return len(queries)

    table(make_user(), [make_user().username], players=3)
    before = count()
    for _ in range(4):
        table(make_user(), [make_user().username, "a@example.org"], players=4)
    assert count() == before


# -- challenges -----------------------------------------------------------------------------------
def test_the_profile_offers_a_challenge_except_to_oneself_bots_and_blocks(
    client: Client, make_user: Any
) -> None:
    anna, bela, robot = make_user("anna"), make_user("bela"), make_user("robot", is_bot=True)
    challenge = reverse("game_create") + "?invite=bela"
    logged_in(client, anna)
    assert challenge in client.get(reverse("player_profile", args=["bela"])).content.decode()
    assert "?invite=" not in client.get(reverse("player_profile", args=["anna"])).content.decode()
    assert "?invite=" not in client.get(reverse("player_profile", args=["robot"])).content.decode()
    blocks.block(blocker=bela, blocked=anna)
    assert "?invite=" not in client.get(reverse("player_profile", args=["bela"])).content.decode()
    client.logout()
    assert "?invite=" not in client.get(reverse("player_profile", args=["bela"])).content.decode()
    assert robot.pk


def played_out(*people: Any) -> Game:
    """A game of ``people`` played to its end by random moves."""
    game = game_create(creator=people[0], kind="keltis", player_count=len(people))
    for person in people[1:]:
        game_join(game_id=game.pk, user=person)
    bot = RandomBot(3)
    for _ in range(5000):
        game.refresh_from_db()
        if game.status == GameStatus.FINISHED:
            break
        action = bot.choose(engine_state(game))
        action_submit(game_id=game.pk, seat=game.to_move, action=action, expected_seq=game.seq)
    assert game.status == GameStatus.FINISHED
    return game


def test_a_finished_game_offers_a_challenge_to_the_other_people(
    client: Client, make_user: Any
) -> None:
    anna, bela = make_user("anna"), make_user("bela", display_name="Béla B")
    cecil = make_user("cecil")
    game = played_out(anna, bela, cecil)
    blocks.block(blocker=cecil, blocked=anna)
    page = logged_in(client, anna).get(f"/games/{game.pk}/").content.decode()
    assert reverse("game_create") + "?invite=bela" in page and "Challenge Béla B" in page
    assert "?invite=anna" not in page and "?invite=cecil" not in page
    client.logout()
    assert "?invite=" not in client.get(f"/games/{game.pk}/").content.decode()
