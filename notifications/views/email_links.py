"""The pages behind emailed links: act on one turn without logging in, and unsubscribe.

Mail scanners open links, so a GET never changes anything: it shows what the link would do
and a button; only the POST from that page acts (as healthchecks and pretix do). An action
link acts for its seat through the same ``action_submit`` as the game page, bound to its turn
and step by ``notifications.links``; a link that cannot act says why, in plain words, and changes
nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.models import EmailMode, User
from accounts.services import email_unsubscribe
from games import integrity, presenters, ratelimit, selectors
from games.error_messages import service_error_text
from games.models import Game, Seat
from games.services import (
    ActionRejected,
    GameFrozen,
    GameMovedOn,
    GameNotRunning,
    GameServiceError,
    NotYourTurn,
    action_submit,
)
from notifications import links
from notifications.emails import linked_groups

#: why a link does not act, by ``LinkError.code``: a heading and an explanation
REFUSALS: dict[str, tuple[Any, Any]] = {
    "invalid": (
        gettext_lazy("This link does not work"),
        gettext_lazy(
            "The link is incomplete or has been changed (a mail program may have broken it "
            "across two lines)."
        ),
    ),
    "too_old": (
        gettext_lazy("This link is too old"),
        gettext_lazy("Links in turn emails last only for their turn; this one has expired."),
    ),
    "bot_account": (
        gettext_lazy("A bot account plays through the API"),
        gettext_lazy("This seat is played by a bot account: its moves go through the API only."),
    ),
    "no_game": (
        gettext_lazy("This game does not exist"),
        gettext_lazy("The game this link was made for is not here (any more)."),
    ),
    "not_running": (
        gettext_lazy("This game is not running"),
        gettext_lazy("The game is over, so the links of its emails no longer act."),
    ),
    "turn_over": (
        gettext_lazy("This turn is over"),
        gettext_lazy(
            "The links of a turn email act only during that turn, and the turn has ended: "
            "it was played, or its deadline passed and the timeout rule played it."
        ),
    ),
    "deadline": (
        gettext_lazy("The deadline has passed"),
        gettext_lazy(
            "The time for this turn ran out, so its links no longer act. The game goes on by "
            "its timeout rule."
        ),
    ),
    "used": (
        gettext_lazy("This step is already done"),
        gettext_lazy(
            "This link was used already, or the game has moved on since it was made (perhaps "
            "you played on the game page)."
        ),
    ),
    "illegal": (
        gettext_lazy("This move is not possible now"),
        gettext_lazy("The rules do not allow this move in the present position."),
    ),
    "frozen": (
        gettext_lazy("This game is frozen"),
        gettext_lazy(
            "This game is frozen: its move record failed an integrity check; the staff have "
            "been told."
        ),
    ),
}


def _game_url(game: Game | None) -> str | None:
    return reverse("game_detail", args=[game.pk]) if game is not None else None


def _position(game: Game, seat: int) -> dict[str, Any]:
    """The game as the seat's player sees it on the game page (their hand, nobody else's)."""
    user = Seat.objects.select_related("user").get(game=game, index=seat).user
    page = selectors.game_page(game=game, user=user)
    context = presenters.game_context(page)
    context.pop("action_groups", None)  # this page's buttons are signed links instead
    return context


def _choices(link: links.ActionLink, game: Game) -> list[Any]:
    """The next steps of the link's turn as buttons, each with a token for the present step;
    none when the turn is not the link's any more."""
    game.refresh_from_db()
    step = link.next_step(seq=game.seq, action="")
    try:
        links.action_check(step, game)
    except links.LinkError:
        return []
    page = selectors.game_page(
        game=game, user=Seat.objects.select_related("user").get(game=game, index=link.seat).user
    )
    if not page.legal or page.view is None:
        return []
    return linked_groups(game.kind, page.legal, page.view, step)


def _refused(
    request: HttpRequest,
    code: str,
    *,
    game: Game | None = None,
    link: links.ActionLink | None = None,
    detail: str = "",
) -> HttpResponse:
    heading, text = REFUSALS.get(code, REFUSALS["invalid"])
    status = links.http_status(code)
    context: dict[str, Any] = {
        "mode": "refused",
        "heading": heading,
        "text": text,
        "detail": detail,
        "game_url": _game_url(game),
    }
    if code == "used" and game is not None and link is not None:
        # the same turn goes on: its next steps are still this link's to offer
        groups = _choices(link, game)
        if groups:
            context.update(_position(game, link.seat), groups=groups)
    context["mode"] = "refused"
    return render(request, "games/email_action.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def email_action(request: HttpRequest, token: str) -> HttpResponse:
    """GET: what the link would do, with a Confirm button. POST: do it, then offer the rest
    of the turn (the draw, a clover…) as further buttons until the turn is done.

    POSTs are counted against ACTION_RATE_LIMIT per client IP (valid or not, which also
    bounds guessing at signatures) and per seat the link acts for."""
    if request.method == "POST" and not ratelimit.hit("action-ip", ratelimit.client_ip(request)):
        return ratelimit.too_many_actions(request)
    try:
        link = links.action_read(token)
    except links.LinkError as error:
        return _refused(request, error.code)
    if request.method == "POST" and not ratelimit.hit("action-seat", f"{link.game_id}:{link.seat}"):
        return ratelimit.too_many_actions(request)
    game = Game.objects.filter(pk=link.game_id).first()
    if game is None:
        return _refused(request, "no_game")
    try:
        links.action_check(link, game)
    except links.LinkError as error:
        return _refused(request, error.code, game=game, link=link)
    if request.method != "POST":
        context = _position(game, link.seat)
        if context["page"].unreplayable is not None:
            integrity.freeze_if_unreplayable(context["page"].unreplayable)
            return _refused(request, "frozen", game=game)
        context.update(
            mode="confirm",
            heading=_("Confirm your move"),
            action_text=presenters.action_label(game.kind, link.action, context["page"].view),
            game_url=_game_url(game),
        )
        return render(request, "games/email_action.html", context)
    if Seat.objects.filter(game=game, index=link.seat, user__is_bot=True).exists():
        return _refused(request, "bot_account", game=game)
    try:
        result = action_submit(
            game_id=game.pk, seat=link.seat, action=link.action, expected_seq=link.seq
        )
    except GameFrozen:
        return _refused(request, "frozen", game=game)
    except GameMovedOn:
        return _refused(request, "used", game=game, link=link)
    except (NotYourTurn, GameNotRunning):
        return _refused(request, "turn_over", game=game, link=link)
    except ActionRejected as error:
        return _refused(request, "illegal", game=game, detail=service_error_text(error))
    except GameServiceError as error:
        return _refused(request, "invalid", game=game, detail=service_error_text(error))
    names = selectors.seat_names(game=game, rows=result.seats)
    message = presenters.result_message(
        game.kind,
        link.action,
        result.engine.view(link.seat),
        link.seat,
        names,
        result.before,
        automatic=[e.action for e in result.automatic],
    )
    groups = _choices(link, game)
    context = _position(game, link.seat)
    if groups:
        heading = _("Your turn goes on")
    elif result.engine.finished:
        heading = _("The game is over")
    else:
        heading = _("Your turn is done")
    context.update(
        mode="done",
        heading=heading,
        message=message,
        groups=groups,
        turn_done=not groups,
        game_url=_game_url(game),
    )
    return render(request, "games/email_action.html", context)


# -- unsubscribe -------------------------------------------------------------------------------
def _csrf_refusal(request: HttpRequest) -> HttpResponse | None:
    """Django's CSRF check, for the one view that must also take RFC 8058's token-less POST."""
    return CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})


@csrf_exempt
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a page asking to confirm. POST from that page (CSRF-checked), or a mail client's
    one-click POST (RFC 8058: the body ``List-Unsubscribe=One-Click``, no CSRF token, which
    is why the view is exempt and checks CSRF itself otherwise): no more game emails."""
    try:
        user_id = links.unsubscribe_read(token)
    except links.LinkError:
        return _unsubscribe_page(request, "invalid", status=400)
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return _unsubscribe_page(request, "invalid", status=410)
    if request.method != "POST":
        state = "off" if user.email_mode == EmailMode.NONE else "confirm"
        return _unsubscribe_page(request, state, user=user)
    one_click = request.POST.get("List-Unsubscribe") == "One-Click"
    if not one_click:
        refusal = _csrf_refusal(request)
        if refusal is not None:
            return refusal
    email_unsubscribe(user)
    return _unsubscribe_page(request, "done", user=user)


def _unsubscribe_page(
    request: HttpRequest, state: str, *, user: User | None = None, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "games/email_unsubscribe.html",
        {"state": state, "player_name": user.public_name if user else None},
        status=status,
    )
