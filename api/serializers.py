"""The API's answers and requests, as DRF serializers: they render every answer and are what
drf-spectacular writes into the OpenAPI schema (so schema and answers cannot drift apart)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from friends.models import InvitationStatus, RematchStatus
from games.forms import BANK_MAX_CAP_HOURS, BANK_MAX_INCREMENT_HOURS
from games.models import DAYS_PER_MOVE_CHOICES, BotKind, GameKind, GameStatus

from .errors import CODES
from .models import Scope


class ErrorSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=CODES, help_text="stable: programs branch on it")
    message = serializers.CharField(help_text="in the player's language")
    engine_code = serializers.CharField(required=False, help_text="illegal_action: the rule")
    fields = serializers.JSONField(required=False, help_text="invalid: the fields' errors")


class RatingSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=GameKind.choices)
    rating = serializers.FloatField()
    highest = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    language = serializers.CharField()
    time_zone = serializers.CharField()
    is_bot = serializers.BooleanField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=Scope.choices))
    my_turn_games = serializers.IntegerField()
    ratings = RatingSerializer(many=True)


class PlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    username = serializers.CharField(allow_null=True, help_text="null for a bot seat")
    is_bot = serializers.BooleanField(help_text="a bot seat or a bot account")
    score = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(allow_null=True)


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GameKind.choices)
    status = serializers.ChoiceField(choices=GameStatus.choices)
    player_count = serializers.IntegerField()
    players = PlayerSerializer(many=True)
    my_seat = serializers.IntegerField(allow_null=True)
    my_turn = serializers.BooleanField()
    to_move = serializers.IntegerField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    time_left = serializers.CharField(help_text="the time left in words ('' without a deadline)")
    seconds_left = serializers.IntegerField(allow_null=True)
    days_per_move = serializers.IntegerField()
    bank_increment_hours = serializers.IntegerField(
        help_text="time bank: hours each of my moves adds to my bank (0: no bank)"
    )
    bank_cap_hours = serializers.IntegerField(help_text="time bank: the most hours it holds")
    rated = serializers.BooleanField()
    frozen = serializers.BooleanField()


class GameListSerializer(serializers.Serializer):
    running = GameSummarySerializer(many=True, help_text="my turn first, least time left first")
    open = GameSummarySerializer(many=True)
    finished = GameSummarySerializer(many=True, help_text="the latest")


class GameSerializer(GameSummarySerializer):
    """records.md's view format (game, finished, to_move, scores, winners, legal, state) with
    the game's standing around it."""

    game = serializers.ChoiceField(choices=GameKind.choices)
    finished = serializers.BooleanField()
    seq = serializers.IntegerField(help_text="send it with an action: the move you saw")
    scores = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    legal = serializers.ListField(
        child=serializers.CharField(), help_text="my legal actions, only when it is my turn"
    )
    phase = serializers.CharField(allow_null=True)
    state = serializers.JSONField(
        allow_null=True, help_text="the engine's view as I may see it (null before the start)"
    )


class ActionInSerializer(serializers.Serializer):
    action = serializers.CharField(max_length=40, help_text="records.md notation: 'play r7'")
    seq = serializers.IntegerField(min_value=0, help_text="the game's seq you saw")


class ActionOutSerializer(serializers.Serializer):
    applied = serializers.ListField(
        child=serializers.CharField(),
        help_text="the action, then any step the site took for you (the only pile to draw)",
    )
    game = GameSerializer()


class GameCreateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=GameKind.choices)
    players = serializers.IntegerField(min_value=2, max_value=4)
    bots = serializers.ListField(
        child=serializers.ChoiceField(choices=BotKind.choices), required=False, max_length=3
    )
    days_per_move = serializers.ChoiceField(
        choices=[d for d, _ in DAYS_PER_MOVE_CHOICES], required=False
    )
    bank_increment_hours = serializers.IntegerField(
        min_value=0,
        max_value=BANK_MAX_INCREMENT_HOURS,
        required=False,
        help_text="time bank: hours each move adds (default 0: no bank)",
    )
    bank_cap_hours = serializers.IntegerField(
        min_value=0,
        max_value=BANK_MAX_CAP_HOURS,
        required=False,
        help_text="time bank: the most hours it holds, at least the increment",
    )
    options = serializers.DictField(child=serializers.BooleanField(), required=False)
    rated = serializers.BooleanField(required=False)
    invitees = serializers.ListField(
        child=serializers.CharField(max_length=254),
        required=False,
        max_length=3,
        help_text="people to hold seats for, each a display name or an email address: each is "
        "invited (friends.invitations) and the game starts when every seat is filled",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        increment = attrs.get("bank_increment_hours", 0)
        if attrs.get("bank_cap_hours", increment) < increment:
            raise serializers.ValidationError(
                {"bank_cap_hours": _("The time bank's cap must be at least its increment.")}
            )
        attrs.setdefault("bank_cap_hours", increment)
        return attrs


class RematchSerializer(serializers.Serializer):
    """A finished game's rematch as I see it (friends.rematches)."""

    status = serializers.CharField(
        allow_null=True,
        help_text=f"one of {', '.join(RematchStatus.values)}; null: nobody offered one yet",
    )
    offered_by = serializers.CharField(help_text="the name of the player who offered it")
    accepted = serializers.ListField(child=serializers.CharField(), help_text="names, so far")
    waiting = serializers.ListField(child=serializers.CharField(), help_text="names")
    declined_by = serializers.CharField(help_text="the name of the player who declined it")
    new_game = serializers.IntegerField(allow_null=True, help_text="once every player accepted")
    may_offer = serializers.BooleanField(help_text="I may offer one now")
    may_answer = serializers.BooleanField(help_text="I may accept or decline it now")


class GameReadSerializer(GameSerializer):
    rematch = RematchSerializer(
        allow_null=True, help_text="a finished game's rematch (null before the end)"
    )


class InvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True, help_text="the table's game id")
    league = serializers.IntegerField(allow_null=True, help_text="the club's league id")
    inviter = serializers.CharField(help_text="the inviter's name")
    invitee = serializers.CharField(
        help_text="the invitee's name; an address invited shows only to its inviter ('' else)"
    )
    status = serializers.CharField(help_text=f"one of {', '.join(InvitationStatus.values)}")
    expires_at = serializers.DateTimeField()


class InvitationListSerializer(serializers.Serializer):
    received = InvitationSerializer(many=True, help_text="waiting for my answer, newest first")
    sent = InvitationSerializer(many=True, help_text="mine, still pending, newest first")


class InviteSerializer(serializers.Serializer):
    invitee = serializers.CharField(
        max_length=254, help_text="a player's display name or an email address"
    )


class TalkRecordSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="the move number it was written at")
    author = serializers.CharField(help_text="the author's display name")
    created_at = serializers.DateTimeField()
    text = serializers.CharField()


class RecordSerializer(serializers.Serializer):
    format = serializers.IntegerField()
    game = serializers.ChoiceField(choices=GameKind.choices)
    players = serializers.ListField(child=serializers.CharField())
    options = serializers.DictField(child=serializers.BooleanField())
    setup = serializers.JSONField()
    actions = serializers.ListField(child=serializers.CharField())
    talk = TalkRecordSerializer(
        many=True,
        required=False,
        help_text="the table talk, only when every author agreed to have it in records",
    )


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="send it as ?after= to read only newer ones")
    game = serializers.IntegerField()
    author = serializers.CharField(help_text="the author's display name")
    author_username = serializers.CharField()
    seq = serializers.IntegerField(help_text="the game's move number it was written at")
    created_at = serializers.DateTimeField()
    text = serializers.CharField(
        allow_blank=True, help_text="as typed: plain text, never HTML; empty when hidden"
    )
    hidden = serializers.BooleanField(help_text="hidden by staff")


class MessageListSerializer(serializers.Serializer):
    messages = MessageSerializer(many=True, help_text="oldest first")
    more = serializers.BooleanField(help_text="more messages follow: ask again with ?after=")
    may_write = serializers.BooleanField(help_text="I may write at this table now")


class MessageInSerializer(serializers.Serializer):
    text = serializers.CharField(
        max_length=10_000, trim_whitespace=False, help_text="plain text (TALK_MAX_LENGTH)"
    )


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = serializers.FloatField()
    highest = serializers.FloatField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()


class PlayerRatingsSerializer(serializers.Serializer):
    username = serializers.CharField()
    name = serializers.CharField()
    is_bot = serializers.BooleanField()
    ratings = RatingSerializer(many=True)


class SeasonSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()


class LeagueSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=GameKind.choices)
    band = serializers.CharField()
    active = serializers.BooleanField()
    members = serializers.IntegerField()
    season = SeasonSerializer(allow_null=True)
    member = serializers.BooleanField(help_text="whether I am a member")
    max_games = serializers.IntegerField(allow_null=True)


class LeagueStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    #: None for a bot entrant
    username = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    #: a bot entrant's level (easy, normal, strong), None for a person
    bot = serializers.CharField(allow_null=True)
    points = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    running = serializers.IntegerField()


class LeagueDetailSerializer(LeagueSerializer):
    standings = LeagueStandingSerializer(many=True, help_text="of the running season")


class LeagueJoinSerializer(serializers.Serializer):
    max_games = serializers.IntegerField(min_value=1, max_value=20, required=False)


class TournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=GameKind.choices)
    format = serializers.CharField()
    status = serializers.CharField()
    signup_until = serializers.DateTimeField()
    table_size = serializers.IntegerField()
    players = serializers.IntegerField()
    signed_up = serializers.BooleanField()
    #: a private tournament: seen by its entrants, organiser and staff, signed up for by its link
    private = serializers.BooleanField()


class TournamentStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    #: None for a bot entrant
    username = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    #: a bot entrant's level (easy, normal, strong), None for a person
    bot = serializers.CharField(allow_null=True)
    points = serializers.FloatField()
    buchholz = serializers.FloatField()
    games = serializers.IntegerField()
    byes = serializers.IntegerField()
    eliminated = serializers.BooleanField()


class TournamentDetailSerializer(TournamentSerializer):
    standings = TournamentStandingSerializer(many=True)
