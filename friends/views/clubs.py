"""A club's invitations page, for its organisers: invite people by display name or email
address, see the invitations waiting for an answer and withdraw any of them.

Here rather than in tournaments because tournaments must not import friends; the league page
links to it by its URL name (``club_invite``). Members and organisers are managed on the league
page itself (tournaments.views_leagues).
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST

from games.error_messages import service_error_text
from games.services import GameServiceError
from tournaments.leagues import may_organise, may_view
from tournaments.models import League

from .. import clubs, invitations
from ..models import Invitation


class ClubInviteForm(forms.Form):
    invitees = forms.CharField(
        label=gettext_lazy("Display names or email addresses"),
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=4000,
        help_text=gettext_lazy(
            "One a line (or separated by commas). A person without an account gets an email "
            "with a link to sign up and join."
        ),
    )

    def texts(self) -> list[str]:
        """The names and addresses given, one each; after is_valid()."""
        raw = self.cleaned_data["invitees"].replace(",", "\n")
        return [line.strip() for line in raw.splitlines() if line.strip()]


def _organised(request: HttpRequest, league_id: int) -> League:
    """The club, for one of its organisers: 404 when the viewer may not even see it (a private
    club), 403 when they see it but do not run it."""
    league = get_object_or_404(League, pk=league_id)
    if not may_view(request.user, league):
        raise Http404
    if not may_organise(request.user, league):
        raise PermissionDenied
    return league


@login_required
@require_http_methods(["GET", "POST"])
def club_invite(request: HttpRequest, league_id: int) -> HttpResponse:
    league = _organised(request, league_id)
    form = ClubInviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            made = clubs.club_invite(league_id=league.pk, inviter=request.user, texts=form.texts())
        except GameServiceError as exc:
            form.add_error("invitees", service_error_text(exc))
        else:
            messages.success(
                request,
                ngettext(
                    "%(n)s invitation sent.",
                    "%(n)s invitations sent.",
                    len(made),
                )
                % {"n": len(made)},
            )
            return redirect("club_invite", league_id=league.pk)
    pending = clubs.club_invitations(league)
    for invitation in pending:  # an address only for its inviter and staff
        invitation.shown_name = invitation.name_for(request.user)
    return render(
        request,
        "friends/club_invite.html",
        {
            "league": league,
            "form": form,
            "pending": pending,
            "max_at_once": clubs.MAX_AT_ONCE,
            "invitation_days": settings.INVITATION_DAYS,
        },
    )


@login_required
@require_POST
def club_invitation_withdraw(
    request: HttpRequest, league_id: int, invitation_id: int
) -> HttpResponse:
    league = _organised(request, league_id)
    get_object_or_404(Invitation, pk=invitation_id, league=league)
    try:
        invitations.withdraw(invitation_id=invitation_id, user=request.user)
    except GameServiceError as exc:
        messages.error(request, service_error_text(exc))
    else:
        messages.success(request, _("The invitation is withdrawn."))
    return redirect("club_invite", league_id=league.pk)
