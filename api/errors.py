"""Every refusal of the API as ``{"code": "...", "message": "..."}``: a stable code for
programs and the message in the player's language (the same words the pages use).

``service_error`` maps the refusals of games' and tournaments' services; ``exception_handler``
gives DRF's own refusals (authentication, scope, rate limit, bad input, not found) the same
shape."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.signals import got_request_exception
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from friends import invitations, rematches
from games import services as game_services
from games.error_messages import service_error_text
from talk import services as talk
from tournaments.leagues import LeagueError
from tournaments.rounds import TournamentError

from .bot_accounts import BotAccountError
from .tokens import TokenError

log = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """A refusal with its stable ``code``, HTTP status and worded message."""

    def __init__(self, code: str, message: str, http_status: int = 400, **extra: Any) -> None:
        self.status_code = http_status
        self.code = code
        self.extra = extra
        super().__init__(detail=message, code=code)


def _codes(module: Any, base: type[game_services.GameServiceError]) -> set[str]:
    """The codes of ``base`` and of its subclasses in ``module``: a refusal added there is in
    the schema at once (and test_bad_input asks docs/api.md to list it)."""
    return {
        value.code for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, base)
    }  # fmt: skip


#: games.services' refusals: (stable code, HTTP status); the most specific class first
GAME_ERRORS: list[tuple[type[Exception], str, int]] = [
    (game_services.GameMovedOn, "stale_sequence", status.HTTP_409_CONFLICT),
    (game_services.NotYourTurn, "not_your_turn", status.HTTP_409_CONFLICT),
    (game_services.GameNotRunning, "not_running", status.HTTP_409_CONFLICT),
    (game_services.GameFrozen, "frozen", status.HTTP_409_CONFLICT),
    (game_services.NotYourSeat, "not_your_seat", status.HTTP_403_FORBIDDEN),
    (game_services.ActionRejected, "illegal_action", status.HTTP_400_BAD_REQUEST),
    (game_services.CannotJoin, "cannot_join", status.HTTP_409_CONFLICT),
    (game_services.CreationLimitReached, "creation_limit", status.HTTP_409_CONFLICT),
    (game_services.GameServiceError, "refused", status.HTTP_400_BAD_REQUEST),
]

#: friends' refusals (invitations, rematches): each class names its own ``code``; the HTTP
#: status of the first class here it is an instance of
FRIENDS_ERRORS: list[tuple[type[Exception], int]] = [
    (invitations.InvitationNotValid, status.HTTP_404_NOT_FOUND),
    (invitations.NotTheInvitee, status.HTTP_403_FORBIDDEN),
    (invitations.InvitationClosed, status.HTTP_409_CONFLICT),
    (invitations.RateLimited, status.HTTP_429_TOO_MANY_REQUESTS),
    (invitations.InvitationError, status.HTTP_400_BAD_REQUEST),
    (rematches.NotAtTheTable, status.HTTP_403_FORBIDDEN),
    (rematches.RematchError, status.HTTP_409_CONFLICT),
]
FRIENDS_CODES = _codes(invitations, invitations.InvitationError) | _codes(
    rematches, rematches.RematchError
)

#: table talk's refusals (talk.services): each names its own ``code``; the HTTP status of the
#: first class here it is an instance of
TALK_ERRORS: list[tuple[type[Exception], int]] = [
    (talk.NotAtTheTable, status.HTTP_403_FORBIDDEN),
    (talk.TalkSuspended, status.HTTP_403_FORBIDDEN),
    (talk.TalkClosed, status.HTTP_409_CONFLICT),
    (talk.TalkTooFast, status.HTTP_429_TOO_MANY_REQUESTS),
    (talk.MessageNotValid, status.HTTP_400_BAD_REQUEST),
    (talk.TalkError, status.HTTP_400_BAD_REQUEST),
]
TALK_CODES = _codes(talk, talk.TalkError)

#: the codes a program may meet, for the docs and the schema
CODES = sorted(
    {code for _cls, code, _st in GAME_ERRORS}
    | FRIENDS_CODES
    | TALK_CODES
    | {
        "not_authenticated",
        "invalid_token",
        "missing_scope",
        "forbidden",
        "rate_limited",
        "not_found",
        "invalid",
        "bad_request",
        "method_not_allowed",
        "not_acceptable",
        "unsupported_media_type",
        "league_refused",
        "tournament_refused",
        "token_refused",
        "bot_refused",
        "record_not_available",
        "bot_account_only",
        "too_large",
        "server_error",
    }
)


def service_error(exc: Exception) -> ApiError:
    """The API's answer to a service's refusal."""
    for cls, http_status in TALK_ERRORS:
        if isinstance(exc, cls):
            code = exc.code if exc.code in TALK_CODES else cls.code  # type: ignore[attr-defined]
            return ApiError(code, service_error_text(exc), http_status)  # type: ignore[arg-type]
    for cls, http_status in FRIENDS_ERRORS:
        if isinstance(exc, cls):
            code = exc.code if exc.code in FRIENDS_CODES else cls.code  # type: ignore[attr-defined]
            return ApiError(code, service_error_text(exc), http_status)  # type: ignore[arg-type]
    if isinstance(exc, game_services.GameServiceError):
        for cls, code, http_status in GAME_ERRORS:
            if isinstance(exc, cls):
                extra = {}
                if isinstance(exc, game_services.ActionRejected):
                    extra["engine_code"] = exc.engine_code
                return ApiError(code, service_error_text(exc), http_status, **extra)
    if isinstance(exc, LeagueError):
        return ApiError("league_refused", str(exc), status.HTTP_409_CONFLICT)
    if isinstance(exc, TournamentError):
        return ApiError("tournament_refused", str(exc), status.HTTP_409_CONFLICT)
    if isinstance(exc, TokenError):
        return ApiError("token_refused", str(exc), status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, BotAccountError):
        return ApiError("bot_refused", str(exc), status.HTTP_409_CONFLICT)
    raise exc


def not_found() -> ApiError:
    return ApiError("not_found", _("There is nothing at this address."), 404)


_DRF_CODES: list[tuple[type[Exception], str]] = [
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "invalid_token"),
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.Throttled, "rate_limited"),
    (exceptions.NotFound, "not_found"),
    (exceptions.ValidationError, "invalid"),
    (exceptions.ParseError, "bad_request"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
]


def _message(exc: exceptions.APIException) -> str:
    if isinstance(exc, exceptions.NotAuthenticated):
        return _("Send a personal API token: 'Authorization: Bearer <token>'.")
    if isinstance(exc, exceptions.Throttled):
        return _("Too many calls in a short time: nothing was changed. Please try again later.")
    if isinstance(exc, exceptions.NotFound):
        return _("There is nothing at this address.")
    if isinstance(exc, exceptions.ValidationError):
        return _("The request is not valid: nothing was changed.")
    if isinstance(exc, (exceptions.MethodNotAllowed, exceptions.ParseError)):
        return _("The request is not valid: nothing was changed.")
    detail = exc.detail
    if isinstance(detail, list | dict):
        return _("The request is not valid: nothing was changed.")
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, RequestDataTooBig):  # over DATA_UPLOAD_MAX_MEMORY_SIZE
        exc = ApiError("too_large", _("The request is too large: nothing was changed."), 413)
    elif isinstance(exc, SuspiciousOperation):  # else Django's HTML 400 page
        exc = exceptions.ParseError()
    response = drf_exception_handler(exc, context)
    if response is None:
        return _server_error(exc, context)
    if isinstance(exc, ApiError):
        body: dict[str, Any] = {"code": exc.code, "message": str(exc.detail), **exc.extra}
    else:
        code = next((c for cls, c in _DRF_CODES if isinstance(exc, cls)), "error")
        if isinstance(exc, exceptions.PermissionDenied) and exc.get_codes() == "missing_scope":
            code = "missing_scope"
        body = {"code": code, "message": _message(exc)}  # type: ignore[arg-type]
        if isinstance(exc, exceptions.ValidationError):
            body["fields"] = exc.detail
    response.data = body
    return response


def _server_error(exc: Exception, context: dict[str, Any]) -> Response | None:
    """A bug's answer is JSON too, as a program expects of every answer here; it is logged and
    signalled as Django does for its HTML 500 (error reports, the test client). With DEBUG on,
    Django's technical page instead."""
    if settings.DEBUG:
        return None
    log.error("api: server error", exc_info=exc)
    request = context.get("request")
    got_request_exception.send(sender=None, request=getattr(request, "_request", request))
    message = _("An error on the site's side: it has been logged. Please try again later.")
    return Response({"code": "server_error", "message": message}, status=500)
