"""The API's endpoints under /api/v1/: thin, as the pages' views are. Reads come from
api.selectors (over the site's selectors), writes from the site's services, refusals become
``{"code", "message"}`` (api.errors)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import translation
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from accounts.middleware import user_language
from friends import invitations, rematches
from friends.models import Invitation
from games import integrity, services, visibility
from games import selectors as game_selectors
from games.models import Game, GameKind
from talk import rules as talk_rules
from talk import selectors as talk_selectors
from talk import services as talk_services
from talk.models import Via
from tournaments import leagues, private_tournaments, rounds
from tournaments.models import Tournament
from tournaments.rating_selectors import leaderboard

from . import selectors
from .errors import ApiError, not_found, service_error
from .models import ApiToken
from .parsers import JSONParser
from .serializers import (
    ActionInSerializer,
    ActionOutSerializer,
    ErrorSerializer,
    GameCreateSerializer,
    GameListSerializer,
    GameReadSerializer,
    GameSerializer,
    GameSummarySerializer,
    InvitationListSerializer,
    InvitationSerializer,
    InviteSerializer,
    LeaderboardRowSerializer,
    LeagueDetailSerializer,
    LeagueJoinSerializer,
    LeagueSerializer,
    MeSerializer,
    MessageInSerializer,
    MessageListSerializer,
    MessageSerializer,
    PlayerRatingsSerializer,
    RecordSerializer,
    RematchSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)

#: the refusals every endpoint may answer
ERRORS = {
    401: OpenApiResponse(ErrorSerializer, description="no token, or not a valid one"),
    403: OpenApiResponse(ErrorSerializer, description="the token lacks the scope"),
    429: OpenApiResponse(ErrorSerializer, description="rate limited"),
}
ACT_ERRORS = {
    **ERRORS,
    400: OpenApiResponse(ErrorSerializer, description="refused: nothing was changed"),
    404: OpenApiResponse(ErrorSerializer, description="no such thing"),
    409: OpenApiResponse(ErrorSerializer, description="refused: nothing was changed"),
    413: OpenApiResponse(ErrorSerializer, description="too_large: the body is over the limit"),
}
READ_ERRORS = {**ERRORS, 404: OpenApiResponse(ErrorSerializer, description="no such thing")}


def render(
    serializer: type[Serializer], data: Any, *, many: bool = False, code: int = 200
) -> Response:
    return Response(serializer(data, many=many).data, status=code)


class ApiView(APIView):
    """Answers in the player's saved language (as their emails are), whichever way they came
    in: a token call has no session for accounts.middleware to read."""

    parser_classes = (JSONParser,)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        """A NUL in the address names nothing: PostgreSQL refuses it in a query (a 500), and
        SQLite finds nobody; both answer the same 404."""
        super().initial(request, *args, **kwargs)
        if any(isinstance(value, str) and "\x00" in value for value in kwargs.values()):
            raise not_found()

    def perform_authentication(self, request: Request) -> None:
        super().perform_authentication(request)  # before scopes and limits: their refusals too
        language = user_language(request.user)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language

    def token(self, request: Request) -> ApiToken | None:
        return request.auth if isinstance(request.auth, ApiToken) else None


def _valid(serializer_class: type[Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _game(game_id: int, user: Any) -> Game:
    """The game, as ``user`` may see it: a private table is none of a stranger's business
    (games.visibility), answered as a game that does not exist."""
    game = get_object_or_404(Game.objects.select_related("snapshot"), pk=game_id)
    if not visibility.may_watch(game, user):
        raise Http404
    return game


class NotFoundView(ApiView):
    """No endpoint at this address: the API's own 404, whoever asks."""

    authentication_classes = ()
    permission_classes = ()
    throttle_classes = ()
    schema = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise not_found()


# -- me -----------------------------------------------------------------------------------------
class MeView(ApiView):
    @extend_schema(responses={200: MeSerializer, **ERRORS}, summary="Me", operation_id="me")
    def get(self, request: Request) -> Response:
        return render(MeSerializer, selectors.me(request.user, self.token(request)))


# -- games --------------------------------------------------------------------------------------
class GamesView(ApiView):
    @extend_schema(
        responses={200: GameListSerializer, **ERRORS}, summary="My games", operation_id="games_mine"
    )
    def get(self, request: Request) -> Response:
        return render(GameListSerializer, selectors.my_games(request.user))

    @extend_schema(
        request=GameCreateSerializer,
        responses={201: GameSerializer, **ACT_ERRORS},
        summary="Create a game",
        operation_id="game_create",
    )
    def post(self, request: Request) -> Response:
        data = _valid(GameCreateSerializer, request)
        table = {
            "kind": data["kind"],
            "player_count": data["players"],
            "options": data.get("options") or {},
            "days_per_move": data.get("days_per_move", 3),
            "bank_increment_hours": data.get("bank_increment_hours", 0),
            "bank_cap_hours": data.get("bank_cap_hours", 0),
            "bots": data.get("bots") or [],
            "rated": data.get("rated"),
        }
        try:
            if data.get("invitees"):
                game = invitations.game_create_with_invitations(
                    creator=request.user, invitees=data["invitees"], **table
                )
            else:
                game = services.game_create(creator=request.user, **table)
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        detail = selectors.game_detail(_game(game.pk, request.user), request.user)
        return render(GameSerializer, detail, code=201)


class OpenGamesView(ApiView):
    @extend_schema(
        responses={200: GameSummarySerializer(many=True), **ERRORS},
        summary="Games to join",
        operation_id="games_open",
    )
    def get(self, request: Request) -> Response:
        return render(GameSummarySerializer, selectors.open_games(request.user), many=True)


class GameView(ApiView):
    @extend_schema(
        responses={200: GameReadSerializer, **READ_ERRORS},
        summary="One game",
        operation_id="game_read",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        page = game_selectors.game_page(game=game, user=request.user, with_rated=False)
        # as the game page does: a log that does not replay freezes the game for staff
        integrity.freeze_if_unreplayable(page.unreplayable)
        answer = selectors.game_answer(page)
        answer["rematch"] = selectors.rematch(game, request.user)
        return render(GameReadSerializer, answer)


class ActionView(ApiView):
    @extend_schema(
        request=ActionInSerializer,
        responses={200: ActionOutSerializer, **ACT_ERRORS},
        summary="Take an action",
        operation_id="game_act",
        description="Through the site's one path of every action: seat, turn, the seq you saw "
        "(stale_sequence when the game has moved on) and the rules are checked.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(ActionInSerializer, request)
        game = _game(game_id, request.user)
        try:
            result = services.action_submit(
                game_id=game.pk,
                seat=None,
                action=data["action"].strip(),
                expected_seq=data["seq"],
                user=request.user,
            )
        except (services.GameMovedOn, DatabaseError) as exc:
            # a retry of a move that was made (its answer lost), or a connection that broke
            # after the commit: answered as the success it was
            made = services.retried_move(
                game_id=game.pk, user_id=request.user.pk, seq=data["seq"],
                action=data["action"].strip(), after_error=isinstance(exc, DatabaseError),
            )  # fmt: skip
            if made is None and isinstance(exc, services.GameServiceError):
                raise service_error(exc) from None
            if made is None:
                raise
            applied = [made.action]
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        else:
            applied = [result.event.action, *(e.action for e in result.automatic)]
        detail = selectors.game_detail(_game(game_id, request.user), request.user)
        return render(ActionOutSerializer, {"applied": applied, "game": detail})


class GameJoinView(ApiView):
    @extend_schema(
        request=None,
        responses={200: GameSerializer, **ACT_ERRORS},
        summary="Join",
        operation_id="game_join",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            services.game_join(game_id=game.pk, user=request.user)
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        detail = selectors.game_detail(_game(game_id, request.user), request.user)
        return render(GameSerializer, detail)


class GameLeaveView(ApiView):
    @extend_schema(
        request=None,
        responses={200: GameSerializer, **ACT_ERRORS},
        summary="Leave",
        operation_id="game_leave",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            services.game_leave(game_id=game.pk, user=request.user)
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        detail = selectors.game_detail(_game(game_id, request.user), request.user)
        return render(GameSerializer, detail)


class RecordView(ApiView):
    @extend_schema(
        responses={200: RecordSerializer, **READ_ERRORS},
        summary="A finished game's record",
        operation_id="game_record",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            record = game_selectors.game_record(game=game)
        except game_selectors.RecordNotAvailable:
            raise ApiError(
                "record_not_available",
                translation.gettext(
                    "The record of a game can be downloaded once the game has finished: "
                    "it shows every hand and the order of the deck."
                ),
                status.HTTP_403_FORBIDDEN,
            ) from None
        return render(RecordSerializer, record)


# -- invitations and rematches (friends) -------------------------------------------------------
# -- table talk ---------------------------------------------------------------------------------
#: the most messages one answer lists
MESSAGES_PAGE = 100


def _message_data(game_id: int, shown: talk_selectors.ShownMessage) -> dict[str, Any]:
    return {
        "id": shown.id, "game": game_id, "author": shown.author,
        "author_username": shown.author_username, "seq": shown.seq,
        "created_at": shown.created_at, "text": shown.text, "hidden": shown.hidden,
    }  # fmt: skip


class MessagesView(ApiView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after", int, description="only the messages with a greater id (polling)"
            )
        ],
        responses={200: MessageListSerializer, **READ_ERRORS},
        summary="Table talk",
        operation_id="game_messages",
        description="The table's messages I may read, oldest first, at most 100 an answer "
        "(`more`: ask again with `?after=` the last id). Never those of a player I blocked; "
        "a message hidden by staff has `hidden` true and an empty `text`.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            after = int(request.query_params.get("after", "0") or 0)
        except ValueError:
            raise exceptions.ValidationError({"after": ["a message id"]}) from None
        rows = talk_selectors.messages_after(
            game, request.user, after_id=after, limit=MESSAGES_PAGE + 1
        )
        user = request.user
        may_write = (
            not getattr(user, "is_bot", False)
            and game.seats.filter(user_id=user.pk).exists()
            and talk_rules.is_open(game)
            and not talk_services.suspended(user)
        )
        answer = {
            "messages": [_message_data(game.pk, m) for m in rows[:MESSAGES_PAGE]],
            "more": len(rows) > MESSAGES_PAGE,
            "may_write": may_write,
        }
        return render(MessageListSerializer, answer)

    @extend_schema(
        request=MessageInSerializer,
        responses={201: MessageSerializer, **ACT_ERRORS},
        summary="Write at the table",
        operation_id="game_message_post",
        description="A message to the table's players (plain text, TALK_MAX_LENGTH characters "
        "at most), through the same path as the game page's box: players only (never a bot "
        "account), while the table's talk is open, within the rate limits.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(MessageInSerializer, request)
        game = _game(game_id, request.user)
        try:
            message = talk_services.message_post(
                game_id=game.pk, user=request.user, text=data["text"], via=Via.API
            )
        except talk_services.TalkError as exc:
            raise service_error(exc) from None
        shown = talk_selectors.shown(message)
        return render(MessageSerializer, _message_data(game.pk, shown), code=201)


def _invitation_answer(request: Request, invitation_id: int, answer: Any) -> Response:
    """An invitation answered or withdrawn by the caller; a refusal changes nothing."""
    try:
        row = answer(invitation_id=invitation_id, user=request.user)
    except Invitation.DoesNotExist:
        raise not_found() from None
    except services.GameServiceError as exc:
        raise service_error(exc) from None
    row = Invitation.objects.select_related("inviter", "invitee").get(pk=row.pk)
    return render(InvitationSerializer, selectors.invitation(row, request.user))


class InvitationsView(ApiView):
    @extend_schema(
        responses={200: InvitationListSerializer, **ERRORS},
        summary="My invitations",
        operation_id="invitations",
        description="The invitations waiting for my answer (to a table or a club), and the "
        "ones I sent that are still waiting for theirs.",
    )
    def get(self, request: Request) -> Response:
        return render(InvitationListSerializer, selectors.invitations_of(request.user))


class GameInviteView(ApiView):
    @extend_schema(
        request=InviteSerializer,
        responses={201: InvitationSerializer, **ACT_ERRORS},
        summary="Invite to my open table",
        operation_id="game_invite",
        description="Holds a free seat of my open game for a player (by display name) or an "
        "email address, who is emailed a link to accept or decline.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(InviteSerializer, request)
        game = _game(game_id, request.user)
        try:
            row = invitations.game_invite(
                game_id=game.pk, inviter=request.user, invitee=data["invitee"]
            )
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        return render(InvitationSerializer, selectors.invitation(row, request.user), code=201)


class InvitationAcceptView(ApiView):
    @extend_schema(
        request=None,
        responses={200: InvitationSerializer, **ACT_ERRORS},
        summary="Accept an invitation",
        operation_id="invitation_accept",
        description="Take the seat (or join the club) it holds: only the player invited.",
    )
    def post(self, request: Request, invitation_id: int) -> Response:
        return _invitation_answer(request, invitation_id, invitations.accept)


class InvitationDeclineView(ApiView):
    @extend_schema(
        request=None,
        responses={200: InvitationSerializer, **ACT_ERRORS},
        summary="Decline an invitation",
        operation_id="invitation_decline",
        description="No, thanks: its seat is free again.",
    )
    def post(self, request: Request, invitation_id: int) -> Response:
        return _invitation_answer(request, invitation_id, invitations.decline)


class InvitationWithdrawView(ApiView):
    @extend_schema(
        request=None,
        responses={200: InvitationSerializer, **ACT_ERRORS},
        summary="Withdraw an invitation",
        operation_id="invitation_withdraw",
        description="Take back an invitation I sent that is still waiting: its seat is free.",
    )
    def post(self, request: Request, invitation_id: int) -> Response:
        return _invitation_answer(request, invitation_id, invitations.withdraw)


class RematchView(ApiView):
    @extend_schema(
        request=None,
        responses={200: RematchSerializer, **ACT_ERRORS},
        summary="Offer or accept a rematch",
        operation_id="rematch",
        description="After a game's end: offers the same table again (same players, options "
        "and clock, seats rotated by one), or accepts the offer there is. The new game starts "
        "once every player has accepted (`new_game`).",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            rematches.rematch_reply(game_id=game.pk, user=request.user)
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        return render(RematchSerializer, selectors.rematch(game, request.user))


class RematchDeclineView(ApiView):
    @extend_schema(
        request=None,
        responses={200: RematchSerializer, **ACT_ERRORS},
        summary="Decline a rematch",
        operation_id="rematch_decline",
        description="Closes the rematch offered for everyone.",
    )
    def post(self, request: Request, game_id: int) -> Response:
        game = _game(game_id, request.user)
        try:
            rematches.rematch_decline(game_id=game.pk, user=request.user)
        except services.GameServiceError as exc:
            raise service_error(exc) from None
        return render(RematchSerializer, selectors.rematch(game, request.user))


# -- ratings ------------------------------------------------------------------------------------
KIND = OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=list(GameKind.values))


class LeaderboardView(ApiView):
    @extend_schema(
        parameters=[KIND],
        responses={200: LeaderboardRowSerializer(many=True), **READ_ERRORS},
        summary="Leaderboard",
        operation_id="leaderboard",
    )
    def get(self, request: Request, kind: str) -> Response:
        if kind not in GameKind.values:
            raise ApiError("not_found", translation.gettext("Unknown game."), 404)
        return render(LeaderboardRowSerializer, selectors.leaderboard(leaderboard(kind)), many=True)


class PlayerRatingsView(ApiView):
    @extend_schema(
        responses={200: PlayerRatingsSerializer, **READ_ERRORS},
        summary="Ratings",
        operation_id="player_ratings",
    )
    def get(self, request: Request, username: str) -> Response:
        user = get_object_or_404(get_user_model(), username=username, is_active=True)
        return render(
            PlayerRatingsSerializer,
            {
                "username": user.username,
                "name": user.public_name,
                "is_bot": user.is_bot,
                "ratings": selectors.ratings_of(user),
            },
        )


# -- leagues ------------------------------------------------------------------------------------
class LeaguesView(ApiView):
    @extend_schema(
        responses={200: LeagueSerializer(many=True), **ERRORS},
        summary="Leagues",
        operation_id="leagues",
    )
    def get(self, request: Request) -> Response:
        return render(LeagueSerializer, selectors.league_list(request.user), many=True)


class LeagueView(ApiView):
    @extend_schema(
        responses={200: LeagueDetailSerializer, **READ_ERRORS},
        summary="A league, standings",
        operation_id="league_read",
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = get_object_or_404(leagues.visible_leagues(request.user), pk=league_id)
        return render(LeagueDetailSerializer, selectors.league_detail(league, request.user))


class LeagueJoinView(ApiView):
    @extend_schema(
        request=LeagueJoinSerializer,
        responses={200: LeagueDetailSerializer, **ACT_ERRORS},
        summary="Join a league",
        operation_id="league_join",
    )
    def post(self, request: Request, league_id: int) -> Response:
        data = _valid(LeagueJoinSerializer, request)
        league = get_object_or_404(leagues.visible_leagues(request.user), pk=league_id)
        try:
            leagues.league_join(
                league_id=league.pk, user=request.user, max_games=data.get("max_games", 2)
            )
        except leagues.LeagueError as exc:
            raise service_error(exc) from None
        return render(LeagueDetailSerializer, selectors.league_detail(league, request.user))


class LeagueLeaveView(ApiView):
    @extend_schema(
        request=None,
        responses={200: LeagueDetailSerializer, **ACT_ERRORS},
        summary="Leave",
        operation_id="league_leave",
    )
    def post(self, request: Request, league_id: int) -> Response:
        league = get_object_or_404(leagues.visible_leagues(request.user), pk=league_id)
        try:
            leagues.league_leave(league_id=league.pk, user=request.user)
        except leagues.LeagueError as exc:
            raise service_error(exc) from None
        return render(LeagueDetailSerializer, selectors.league_detail(league, request.user))


# -- tournaments --------------------------------------------------------------------------------
def _tournament(tournament_id: int, user: Any) -> Tournament:
    """The tournament, as ``user`` may see it: a private one is its entrants', organiser's and
    staff's (tournaments.private_tournaments), answered to others as one that does not exist."""
    return get_object_or_404(private_tournaments.visible_tournaments(user), pk=tournament_id)


class TournamentsView(ApiView):
    @extend_schema(
        responses={200: TournamentSerializer(many=True), **ERRORS},
        summary="Tournaments",
        operation_id="tournaments",
    )
    def get(self, request: Request) -> Response:
        return render(TournamentSerializer, selectors.tournament_list(request.user), many=True)


class TournamentView(ApiView):
    @extend_schema(
        responses={200: TournamentDetailSerializer, **READ_ERRORS},
        summary="A tournament, standings",
        operation_id="tournament_read",
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id, request.user)
        return render(
            TournamentDetailSerializer, selectors.tournament_detail(tournament, request.user)
        )


class TournamentJoinView(ApiView):
    @extend_schema(
        request=None,
        responses={200: TournamentDetailSerializer, **ACT_ERRORS},
        summary="Sign up",
        operation_id="tournament_join",
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id, request.user)
        try:
            rounds.tournament_signup(tournament_id=tournament.pk, user=request.user)
        except rounds.TournamentError as exc:
            raise service_error(exc) from None
        return render(
            TournamentDetailSerializer, selectors.tournament_detail(tournament, request.user)
        )


class TournamentLeaveView(ApiView):
    @extend_schema(
        request=None,
        responses={200: TournamentDetailSerializer, **ACT_ERRORS},
        summary="Withdraw",
        operation_id="tournament_leave",
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id, request.user)
        try:
            rounds.tournament_withdraw(tournament_id=tournament.pk, user=request.user)
        except rounds.TournamentError as exc:
            raise service_error(exc) from None
        return render(
            TournamentDetailSerializer, selectors.tournament_detail(tournament, request.user)
        )
