"""A club's invitations page (friends.views.clubs): its organisers invite by display name or
address, see what waits for an answer and withdraw their own; nobody else gets in."""

from __future__ import annotations

from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from accounts.models import User
from friends import clubs as friend_clubs
from friends import invitations
from friends.models import Invitation, InvitationStatus
from tournaments import clubs
from tournaments.models import League

pytestmark = pytest.mark.django_db


def club(creator: User, private: bool = True) -> League:
    EmailAddress.objects.get_or_create(
        user=creator, email=creator.email, defaults={"verified": True, "primary": True}
    )
    return clubs.club_create(
        creator=creator, private=private, name="Friday friends", kind="keltis-cards"
    )


def page(league: League) -> str:
    return reverse("club_invite", args=[league.pk])


def test_the_organiser_invites_by_name_and_by_address(make_user: Any, client: Client) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    league = club(anna)
    client.force_login(anna)
    assert client.get(page(league)).status_code == 200
    response = client.post(page(league), {"invitees": "bela, friend@example.org"}, follow=True)
    assert response.redirect_chain == [(page(league), 302)]
    assert [str(m) for m in response.context["messages"]] == ["2 invitations sent."]
    html = response.content.decode()
    assert "bela" in html and "friend@example.org" in html  # the inviter sees the address
    rows = Invitation.objects.filter(league=league)
    assert {(row.invitee, row.email) for row in rows} == {(bela, ""), (None, "friend@example.org")}
    assert reverse("club_invitation_withdraw", args=[league.pk, rows[0].pk]) in html


def test_a_refused_invitation_is_an_error_on_the_form(make_user: Any, client: Client) -> None:
    anna = make_user("anna")
    league = club(anna)
    client.force_login(anna)
    response = client.post(page(league), {"invitees": "nobody-called-so"})
    assert response.status_code == 200
    assert "There is no player called" in response.content.decode()
    response = client.post(page(league), {"invitees": "anna"})
    assert "You cannot invite yourself." in response.content.decode()
    assert not Invitation.objects.exists()


def test_the_inviter_withdraws_an_invitation(make_user: Any, client: Client) -> None:
    anna = make_user("anna")
    make_user("bela")
    league = club(anna)
    (invitation,) = friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["bela"])
    client.force_login(anna)
    url = reverse("club_invitation_withdraw", args=[league.pk, invitation.pk])
    assert client.get(url).status_code == 405  # GET changes nothing
    response = client.post(url, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["The invitation is withdrawn."]
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.WITHDRAWN
    assert friend_clubs.club_invitations(league) == []


def test_a_co_organiser_invites_and_sees_others_invitations_without_their_addresses(
    make_user: Any, client: Client
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    league = club(anna)
    (invitation,) = friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["bela"])
    invitations.accept(invitation_id=invitation.pk, user=bela)
    clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["secret@example.org"])
    client.force_login(bela)
    html = client.get(page(league)).content.decode()
    assert "secret@example.org" not in html and "an email address" in html
    client.post(page(league), {"invitees": "new@example.org"})
    assert Invitation.objects.filter(league=league, inviter=bela, email="new@example.org")


def test_nobody_else_reaches_the_page(make_user: Any, client: Client) -> None:
    anna, bela, stranger = make_user("anna"), make_user("bela"), make_user("stranger")
    league = club(anna)
    (invitation,) = friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["bela"])
    invitations.accept(invitation_id=invitation.pk, user=bela)
    withdraw = reverse("club_invitation_withdraw", args=[league.pk, invitation.pk])
    assert client.get(page(league)).status_code == 302  # to the login page
    client.force_login(stranger)  # a private club does not exist for them
    assert client.get(page(league)).status_code == 404
    assert client.post(page(league), {"invitees": "x@example.org"}).status_code == 404
    client.force_login(bela)  # a member sees the club but does not run it
    assert client.get(page(league)).status_code == 403
    assert client.post(page(league), {"invitees": "x@example.org"}).status_code == 403
    assert client.post(withdraw).status_code == 403
    public = club(anna, private=False)
    client.force_login(stranger)
    assert client.get(page(public)).status_code == 403
    assert Invitation.objects.count() == 1


def test_a_co_organiser_withdraws_an_invitation_another_organiser_sent(
    make_user: Any, client: Client
) -> None:
    anna, bela = make_user("anna"), make_user("bela")
    league = club(anna)
    (joining,) = friend_clubs.club_invite(league_id=league.pk, inviter=anna, texts=["bela"])
    invitations.accept(invitation_id=joining.pk, user=bela)
    clubs.organiser_add(league_id=league.pk, by=anna, user=bela)
    (invitation,) = friend_clubs.club_invite(
        league_id=league.pk, inviter=anna, texts=["friend@example.org"]
    )
    client.force_login(bela)
    client.post(reverse("club_invitation_withdraw", args=[league.pk, invitation.pk]))
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.WITHDRAWN
