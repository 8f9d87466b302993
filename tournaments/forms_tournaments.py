"""The create-tournament form: checks the choices; ``rounds.tournament_create`` makes it. The
organiser's add-a-bot form."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import DAYS_PER_MOVE_CHOICES, BotKind, GameKind

from .models import BOT_LEVEL_CHOICES, Tournament
from .rounds import MAX_ROUND_DAYS, MAX_SWISS_ROUNDS

Format = Tournament.Format


def _default_signup_until() -> str:
    """A week from now, on the hour, in the viewer's time zone (as the input shows it)."""
    then = timezone.localtime(timezone.now() + timedelta(days=7))
    return then.replace(minute=0, second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M")


class TournamentCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    kind = forms.ChoiceField(
        label=_("Game"), choices=GameKind.choices, initial=GameKind.BOARD,
        widget=forms.RadioSelect,
    )
    format = forms.ChoiceField(
        label=_("Format"), choices=Format.choices, initial=Format.SWISS,
        widget=forms.RadioSelect,
        help_text=_(
            "Swiss: a set number of rounds, each pairing players with equal scores. Round "
            "robin: everyone meets everyone once. Single elimination: the loser of each game "
            "is out."
        ),
    )
    table_size = forms.TypedChoiceField(
        label=_("Players per table"), choices=[(n, n) for n in (2, 3, 4)], coerce=int,
        initial=2, widget=forms.RadioSelect,
        help_text=_("Round robin and elimination are played at tables of 2; Swiss at 2 to 4."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds"), min_value=1, max_value=MAX_SWISS_ROUNDS, initial=5, required=False,
        help_text=_("Swiss only: round robin and elimination take as many as the field needs."),
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"), choices=DAYS_PER_MOVE_CHOICES, coerce=int, initial=3,
    )
    bank_increment_hours = forms.IntegerField(
        label=_("Time bank per move (hours)"), min_value=0, max_value=72, initial=0,
        help_text=_("0: no time bank."),
    )
    bank_cap_hours = forms.IntegerField(
        label=_("Time bank cap (hours)"), min_value=0, max_value=720, initial=0,
    )
    signup_until = forms.DateTimeField(
        label=_("Sign-up closes"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Your time zone. The first round starts then, on its own."),
    )
    round_days = forms.IntegerField(
        label=_("Days per round"), min_value=1, max_value=MAX_ROUND_DAYS, initial=30,
        help_text=_(
            "Games still running this many days after their round started are decided by "
            "their current scores."
        ),
    )
    private = forms.BooleanField(
        label=_("Private tournament"),
        required=False,
        help_text=_(
            "Not listed among the tournaments, and only its players can see it and its games. "
            "You get a link to share with the people you want in it."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["signup_until"].initial = _default_signup_until

    def clean_signup_until(self) -> Any:
        value = self.cleaned_data["signup_until"]
        if value <= timezone.now():
            raise forms.ValidationError(_("The sign-up deadline must be in the future."))
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        fmt, size = data.get("format"), data.get("table_size")
        if fmt and size and fmt != Format.SWISS and size != 2:
            self.add_error(
                "table_size", _("Round robin and elimination games have 2 players.")
            )
        if fmt == Format.SWISS and not data.get("rounds") and "rounds" not in self.errors:
            self.add_error("rounds", _("How many rounds should the Swiss have?"))
        increment, cap = data.get("bank_increment_hours"), data.get("bank_cap_hours")
        if increment is not None and cap is not None and cap < increment:
            self.add_error("bank_cap_hours", _("The cap must be at least the hours per move."))
        return data

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournament_create`` (besides the creator)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "kind": data["kind"],
            "format": data["format"],
            "table_size": data["table_size"],
            "rounds": data.get("rounds") or 0,
            "days_per_move": data["days_per_move"],
            "bank_increment_hours": data["bank_increment_hours"],
            "bank_cap_hours": data["bank_cap_hours"],
            "signup_until": data["signup_until"],
            "round_days": data["round_days"],
            "private": bool(data.get("private")),
        }


class BotAddForm(forms.Form):
    """The organiser enters a bot of a level (``rounds.bot_add``)."""

    level = forms.ChoiceField(
        label=_("Bot level"), choices=BOT_LEVEL_CHOICES, initial=BotKind.NORMAL,
        error_messages={
            "required": _("Choose the bot's level: easy, normal or strong."),
            "invalid_choice": _("Choose the bot's level: easy, normal or strong."),
        },
    )
