"""The create-league form of staff and of players creating a club: its rules are
``leagues.league_settings_errors`` (the admin's League form checks the same);
``clubs.club_create`` makes the league."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import DAYS_PER_MOVE_CHOICES, GameKind

from . import leagues
from .models import BOT_LEVEL_CHOICES

PLAYER_CHOICES = [(n, n) for n in range(leagues.PLAYERS_MIN, leagues.PLAYERS_MAX + 1)]
#: a rating is stored in a PositiveSmallIntegerField
RATING_MAX = 32767


class LeagueCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    kind = forms.ChoiceField(
        label=_("Game"), choices=GameKind.choices, initial=GameKind.BOARD,
        widget=forms.RadioSelect,
    )  # fmt: skip
    min_players = forms.TypedChoiceField(
        label=_("Fewest players a table"), choices=PLAYER_CHOICES, coerce=int,
        initial=leagues.PLAYERS_MIN, widget=forms.RadioSelect,
    )  # fmt: skip
    max_players = forms.TypedChoiceField(
        label=_("Most players a table"), choices=PLAYER_CHOICES, coerce=int,
        initial=leagues.PLAYERS_MAX, widget=forms.RadioSelect,
    )  # fmt: skip
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"), choices=DAYS_PER_MOVE_CHOICES, coerce=int, initial=3,
    )  # fmt: skip
    bank_increment_hours = forms.IntegerField(
        label=_("Time bank per move (hours)"), min_value=0, max_value=72, initial=0,
        help_text=_("0: no time bank."),
    )  # fmt: skip
    bank_cap_hours = forms.IntegerField(
        label=_("Time bank cap (hours)"), min_value=0, max_value=720, initial=0,
    )  # fmt: skip
    rating_min = forms.IntegerField(
        label=_("Lowest rating"), min_value=0, max_value=RATING_MAX, required=False,
        help_text=_("Empty: no lower bound."),
    )  # fmt: skip
    rating_max = forms.IntegerField(
        label=_("Highest rating"), min_value=0, max_value=RATING_MAX, required=False,
        help_text=_("Empty: no upper bound."),
    )  # fmt: skip
    bot_level = forms.ChoiceField(
        label=_("Bots at short tables"), required=False, initial="",
        choices=[("", _("No bots: members wait for members")), *BOT_LEVEL_CHOICES],
        widget=forms.RadioSelect,
        help_text=_(
            "When too few members wait to fill a table, the matchmaker fills it with bots of "
            "this level, so members of a small league still get their games. Bots are not "
            "rated; the people at the table are rated against each other."
        ),
        error_messages={
            "invalid_choice": _("Choose the bots' level: none, easy, normal or strong."),
        },
    )  # fmt: skip
    season_days = forms.IntegerField(
        label=_("Season length (days)"), min_value=leagues.SEASON_DAYS_MIN,
        max_value=leagues.SEASON_DAYS_MAX, initial=90,
        help_text=_("At a season's end its unfinished games are decided by their current scores."),
    )  # fmt: skip

    private = forms.BooleanField(
        label=_("Private club"),
        required=False,
        help_text=_(
            "Not listed among the leagues; only its members and organisers see its page, "
            "standings and games. People join it by your invitation."
        ),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for field, message in leagues.league_settings_errors(data).items():
            self.add_error(field if field in self.fields else None, message)
        return data

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``leagues.league_create``."""
        return {name: self.cleaned_data[name] for name in self.fields}


class LeagueEditForm(LeagueCreateForm):
    """The settings a club's organisers (and staff) may change: all but the game."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["kind"]

    def update_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``clubs.league_update``."""
        return {name: self.cleaned_data[name] for name in self.fields}
