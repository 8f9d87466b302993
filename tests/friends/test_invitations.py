"""The invitation service (friends.invitations): who may be invited, the seats invitations hold,
and answers by the member, by the link's holder, forged, reused or expired links."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts import blocks
from friends import invitations
from friends.invitations import (
    AddressNotValid,
    AddressRefused,
    CannotInvite,
    InvitationClosed,
    InvitationNotValid,
    InviteeNotFound,
    NotTheInvitee,
    RateLimited,
    TooManyInvitees,
)
from friends.models import Invitation, InvitationStatus, OptOut
from games.models import Game, GameStatus
from games.services import CannotJoin, game_join, game_seat_bot

pytestmark = pytest.mark.django_db


def table(creator: Any, invitees: list[str], players: int = 3, **kwargs: Any) -> Game:
    return invitations.game_create_with_invitations(
        creator=creator, invitees=invitees, kind="keltis", player_count=players, **kwargs
    )


def test_a_member_invited_by_name_holds_a_seat_and_accepts_it(make_user: Any) -> None:
    anna, bela, stranger = make_user("anna"), make_user("bela"), make_user("stranger")
    bela.display_name = "Béla"
    bela.save()
    game = table(anna, ["BÉLA"], players=2)  # the case-folded key finds "Béla"
    (invitation,) = Invitation.objects.filter(game=game)
    assert invitation.invitee == bela and invitation.pending
    with pytest.raises(CannotJoin):  # the only free seat is Béla's
        game_join(game_id=game.pk, user=stranger)
    invitations.accept(invitation_id=invitation.pk, user=bela)
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING
    assert [seat.user for seat in game.seats.all()] == [anna, bela]
    with pytest.raises(InvitationClosed):  # used once
        invitations.accept(invitation_id=invitation.pk, user=bela)


def test_an_address_invitation_is_accepted_by_whoever_holds_its_link(make_user: Any) -> None:
    anna = make_user("anna")
    game = table(anna, ["Friend@Example.org"], players=2)
    (invitation,) = Invitation.objects.filter(game=game)
    assert invitation.email == "friend@example.org" and invitation.invitee is None
    newcomer = make_user("newcomer")
    with pytest.raises(NotTheInvitee):  # without the link's secret nobody may
        invitations.accept(invitation_id=invitation.pk, user=newcomer)
    with pytest.raises(InvitationNotValid):  # a forged secret
        invitations.accept(invitation_id=invitation.pk, user=newcomer, secret="x" * 32)
    invitations.accept(invitation_id=invitation.pk, user=newcomer, secret=invitation.secret)
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.ACCEPTED and invitation.invitee == newcomer
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING


def test_a_members_address_invites_the_member(make_user: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    game = table(anna, [bela.email.upper()])
    assert Invitation.objects.get(game=game).invitee == bela


def test_refused_invitees_create_nothing(make_user: Any, settings: Any) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    make_user("cecil")
    blocks.block(blocker=bela, blocked=anna)
    OptOut.objects.create(email="never@example.org")
    OptOut.objects.create(email="gone@example.org", reason=OptOut.Reason.BOUNCED)
    cases = [
        (["nobody-like-this"], InviteeNotFound),
        (["not an address@"], AddressNotValid),
        (["anna"], CannotInvite),  # oneself
        (["bela"], CannotInvite),  # a block, either way
        (["never@example.org"], AddressRefused),
        (["gone@example.org"], AddressRefused),
        (["cecil", "cecil"], CannotInvite),
        (["cecil", "a@example.org", "b@example.org"], TooManyInvitees),
    ]
    for invitees, error in cases:
        with pytest.raises(error) as raised:
            table(anna, invitees)
        assert str(raised.value)  # worded, with its parameters
    assert not Game.objects.exists() and not Invitation.objects.exists()
    settings.INVITATIONS_TO_ADDRESSES_PER_DAY = 3
    table(anna, ["a@example.org", "b@example.org"])
    with pytest.raises(RateLimited) as raised:
        table(anna, ["c@example.org", "d@example.org"])
    assert "3" in str(raised.value) and "1" in str(raised.value)
    assert Invitation.objects.count() == 2


def test_declined_expired_and_withdrawn_seats_are_free_again(make_user: Any) -> None:
    anna, bela, cecil, dora = (make_user(n) for n in ("anna", "bela", "cecil", "dora"))
    game = table(anna, ["bela", "cecil", "dora@example.org"], players=4)
    by_name = {i.invitee_name(): i for i in Invitation.objects.filter(game=game)}
    assert invitations.held_seats(game) == 3
    invitations.decline(invitation_id=by_name["bela"].pk, user=bela)
    with pytest.raises(NotTheInvitee):
        invitations.decline(invitation_id=by_name["cecil"].pk, user=bela)
    invitations.withdraw(invitation_id=by_name["cecil"].pk, user=anna)
    Invitation.objects.filter(pk=by_name["dora@example.org"].pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert invitations.held_seats(game) == 0
    with pytest.raises(InvitationClosed) as raised:
        invitations.accept(
            invitation_id=by_name["dora@example.org"].pk,
            user=dora,
            secret=by_name["dora@example.org"].secret,
        )
    assert "expired" in str(raised.value)
    assert invitations.expire_due() == 1
    game_join(game_id=game.pk, user=cecil)
    game_seat_bot(game_id=game.pk, user=anna, level="easy")
    game_join(game_id=game.pk, user=dora)
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING


def test_only_the_creator_invites_more_and_never_past_the_free_seats(make_user: Any) -> None:
    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    game = table(anna, ["bela"], players=2)
    with pytest.raises(CannotInvite):
        invitations.game_invite(game_id=game.pk, inviter=bela, invitee="cecil")
    with pytest.raises(TooManyInvitees):
        invitations.game_invite(game_id=game.pk, inviter=anna, invitee="cecil")
    invitation = Invitation.objects.get(game=game)
    invitations.decline(invitation_id=invitation.pk, user=bela)
    again = invitations.game_invite(game_id=game.pk, inviter=anna, invitee="cecil")
    assert again.invitee == cecil and invitations.pending_for(cecil) == [again]


def test_the_data_export_holds_invitations_and_blocks_but_no_link_secret(make_user: Any) -> None:
    from games.maintenance import export_user_data

    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    blocks.block(blocker=anna, blocked=cecil)
    game = table(anna, ["bela", "friend@example.org"])
    secrets = list(Invitation.objects.values_list("secret", flat=True))
    mine = export_user_data(anna)
    assert {i["invitee"] for i in mine["invitations_sent"]} == {
        bela.public_name,
        "friend@example.org",
    }
    assert mine["blocked_players"] == [
        {"player": cecil.public_name, "since": mine["blocked_players"][0]["since"]}
    ]
    theirs = export_user_data(bela)
    assert [i["game"] for i in theirs["invitations_received"]] == [game.pk]
    assert "friend@example.org" not in str(theirs)  # another's address stays with its inviter
    assert not any(secret in str(mine) + str(theirs) for secret in secrets)


def test_a_players_pending_invitations_are_the_open_ones_newest_first(
    make_user: Any, django_assert_num_queries: Any
) -> None:
    """``pending_for`` (a compiled query, the not yet expired kept in Python) lists what the
    ORM's filter on ``_pending`` lists: pending, not expired, to an open table."""
    anna, bela, cecil = make_user("anna"), make_user("bela"), make_user("cecil")
    older, newer, expired, declined = (table(anna, ["cecil"]) for _ in range(4))
    Invitation.objects.filter(game=older).update(created_at=timezone.now() - timedelta(hours=1))
    Invitation.objects.filter(game=expired).update(expires_at=timezone.now() - timedelta(minutes=1))
    Invitation.objects.filter(game=declined).update(status=InvitationStatus.DECLINED)
    table(anna, ["bela"])  # someone else's
    with django_assert_num_queries(1):
        pending = invitations.pending_for(cecil)
    assert [row.game for row in pending] == [newer, older]
    assert pending == list(
        invitations._pending(invitee=cecil)
        .filter(game__status=GameStatus.OPEN)
        .order_by("-created_at")
    )
    assert [row.inviter for row in pending] == [anna, anna]  # read with the rows
    Game.objects.filter(pk=newer.pk).update(status=GameStatus.CANCELLED)
    assert [row.game for row in invitations.pending_for(cecil)] == [older]
    assert invitations.pending_for(bela) != [] and invitations.pending_for(make_user()) == []
