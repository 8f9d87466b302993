"""The create-game form: checks the choices; ``games.services.game_create`` makes the game."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from . import services
from .engine.registry import GAMES
from .listings import option_help, option_label
from .models import BOT_LEVELS, DAYS_PER_MOVE_CHOICES, BotKind, GameKind
from .rated import RatedStatus, rated_status, rule_text

#: how many seats besides the creator's a game can have
OTHER_SEATS = 3

#: a seat waits for a person or takes a bot of the level chosen (easy, normal, strong)
SEAT_CHOICES = [("", _("wait for a person")), *((level.value, level.label) for level in BOT_LEVELS)]
#: a seat held for a person named in the seat's text field (a display name or an email
#: address): offered while ``services.CREATE_WITH_INVITEES`` has a creator (friends)
INVITE = "invite"
INVITE_CHOICE = (INVITE, _("invite a person"))

#: the time bank presets: (hours added per move, the most the bank may hold)
NO_BANK, CUSTOM_BANK = "none", "custom"
BANK_PRESETS: dict[str, tuple[int, int]] = {
    NO_BANK: (0, 0),
    "6-24": (6, 24),
    "12-48": (12, 48),
    "24-120": (24, 120),
}
BANK_CHOICES = [
    (NO_BANK, _("No time bank: every move has exactly the days per move")),
    ("6-24", _("+6 hours per move, up to 1 day")),
    ("12-48", _("+12 hours per move, up to 2 days")),
    ("24-120", _("+1 day per move, up to 5 days")),
    (CUSTOM_BANK, _("My own numbers")),
]
#: the limits of the own numbers, in hours
BANK_MAX_INCREMENT_HOURS = 72
BANK_MAX_CAP_HOURS = 14 * 24


def option_field_name(kind: str, option: str) -> str:
    return f"{kind.replace('-', '_')}__{option}"


class GameCreateForm(forms.Form):
    """A new game: which game, how many players, its options, the pace, and bots if wanted.

    Both games' options are fields (the page shows them in one fieldset per game); only the
    chosen game's reach the service, and choosing another game's option is an error.
    """

    kind = forms.ChoiceField(
        label=_("Game"),
        choices=GameKind.choices,
        initial=GameKind.BOARD,
        widget=forms.RadioSelect,
    )
    player_count = forms.TypedChoiceField(
        label=_("Number of players"),
        choices=[(n, n) for n in range(2, 2 + OTHER_SEATS)],
        coerce=int,
        initial=2,
        widget=forms.RadioSelect,
        help_text=_("You included."),
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"),
        choices=DAYS_PER_MOVE_CHOICES,
        coerce=int,
        initial=3,
        help_text=_("How long each player has for a move before the turn times out."),
    )
    time_bank = forms.ChoiceField(
        label=_("Time bank"),
        choices=BANK_CHOICES,
        initial=NO_BANK,
        required=False,
        widget=forms.RadioSelect,
        help_text=_(
            "Spare time for slow moves. Each player's bank starts empty; every turn adds to "
            "it, up to its limit. A turn longer than the days per move draws on the bank "
            "before it times out."
        ),
    )
    bank_increment_hours = forms.IntegerField(
        label=_("Hours added per move"),
        required=False,
        min_value=1,
        max_value=BANK_MAX_INCREMENT_HOURS,
        help_text=_("1 to 72 hours."),
    )
    bank_cap_hours = forms.IntegerField(
        label=_("Most hours the bank holds"),
        required=False,
        min_value=1,
        max_value=BANK_MAX_CAP_HOURS,
        help_text=_("At least the hours added per move, at most 336 (14 days)."),
    )

    private = forms.BooleanField(
        label=_("Private table"),
        required=False,
        help_text=_(
            "Not listed in the lobby, and only its players can see it. You get a link to share "
            "with the people you want at the table."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: field name -> (game kind, option name)
        self.option_fields: dict[str, tuple[str, str]] = {}
        for kind, cls in GAMES.items():
            for option, default in cls.OPTIONS.items():
                name = option_field_name(kind, option)
                self.fields[name] = forms.BooleanField(
                    label=option_label(kind, option),
                    help_text=option_help(kind, option),
                    required=False,
                    initial=default,
                )
                self.option_fields[name] = (kind, option)
        #: whether a seat may be held for an invited person (friends registered its creator)
        self.can_invite = bool(services.CREATE_WITH_INVITEES)
        choices = [*SEAT_CHOICES, INVITE_CHOICE] if self.can_invite else SEAT_CHOICES
        for number in range(1, OTHER_SEATS + 1):
            self.fields[f"seat_{number}"] = forms.ChoiceField(
                label=_("Other player %(number)s") % {"number": number},
                choices=choices,
                required=False,
                initial="",
            )
            if self.can_invite:
                self.fields[f"invitee_{number}"] = forms.CharField(
                    label=pgettext_lazy("invitation", "Display name or email address"),
                    required=False,
                    max_length=254,
                )

    # -- for the template -----------------------------------------------------------------------
    def option_fieldsets(self) -> list[tuple[str, str, list[forms.BoundField], bool]]:
        """(game kind, its name, its option fields, whether one has an error) for each game."""
        fieldsets = []
        for kind in GAMES:
            fields = [self[name] for name, (k, _o) in self.option_fields.items() if k == kind]
            has_errors = any(field.errors for field in fields)
            fieldsets.append((kind, str(GameKind(kind).label), fields, has_errors))
        return fieldsets

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{number}"] for number in range(1, OTHER_SEATS + 1)]

    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField | None]]:
        """(the seat's choice, its invitee's name or address field or None) for each seat."""
        return [
            (self[f"seat_{n}"], self[f"invitee_{n}"] if self.can_invite else None)
            for n in range(1, OTHER_SEATS + 1)
        ]

    def bank_fields(self) -> list[forms.BoundField]:
        return [self["bank_increment_hours"], self["bank_cap_hours"]]

    # -- rated or not ---------------------------------------------------------------------------
    def rated_rule(self) -> str:
        return rule_text()

    def rated_preview(self) -> RatedStatus:
        """Whether the game the current choices make is rated, and why (valid or not yet)."""
        players, bots = self._table()
        return rated_status(people=players - bots, bots=bots)

    def rated_by_table(self) -> dict[str, str]:
        """The reason for every table the form can make, keyed "players-bots": the page's
        script shows the one chosen while the player changes the seats."""
        return {
            f"{players}-{bots}": rated_status(people=players - bots, bots=bots).reason
            for players in range(2, 2 + OTHER_SEATS)
            for bots in range(players)
        }

    def _table(self) -> tuple[int, int]:
        """(players, bots) as chosen so far: the submitted values where they make sense, else
        the initial ones; a bot on a seat the table does not have is not counted."""
        choices = {str(n) for n in range(2, 2 + OTHER_SEATS)}
        raw = self.data.get("player_count") if self.is_bound else None
        if raw not in choices:
            raw = str(self.initial.get("player_count", self.fields["player_count"].initial))
        players = int(raw)
        seats = [f"seat_{n}" for n in range(1, players)]
        bots = sum(1 for name in seats if self.data.get(name) in BotKind.values)
        return players, bots

    # -- checks ---------------------------------------------------------------------------------
    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if kind:
            for name, (option_kind, option) in self.option_fields.items():
                default = GAMES[option_kind].OPTIONS[option]
                if option_kind != kind and data.get(name, default) != default:
                    self.add_error(
                        name,
                        _("This option belongs to %(game)s, not to the game you chose.")
                        % {"game": GameKind(option_kind).label},
                    )
        self._clean_invitees(data)
        players = data.get("player_count")
        if players:
            for number in range(players, OTHER_SEATS + 1):
                if data.get(f"invitee_{number}"):
                    self.add_error(
                        f"invitee_{number}",
                        _(
                            "A game of %(players)s players has no seat for this player: "
                            "leave the name empty."
                        )
                        % {"players": players},
                    )
                elif data.get(f"seat_{number}"):
                    self.add_error(
                        f"seat_{number}",
                        _(
                            "A game of %(players)s players has no seat for this player: "
                            "leave it waiting for a person."
                        )
                        % {"players": players},
                    )
        self._clean_bank(data)
        return data

    def _clean_invitees(self, data: dict[str, Any]) -> None:
        """A seat to invite to needs a name or an address; one typed on a seat left waiting
        for a person invites that person (the name says what the player meant), and one typed
        on a bot's seat is an error rather than dropped."""
        if not self.can_invite:
            return
        for number in range(1, OTHER_SEATS + 1):
            choice = data.get(f"seat_{number}")
            name = (data.get(f"invitee_{number}") or "").strip()
            data[f"invitee_{number}"] = name
            if choice == INVITE and not name:
                self.add_error(
                    f"invitee_{number}",
                    _("Give the display name or the email address of the person to invite."),
                )
            elif name and not choice:
                data[f"seat_{number}"] = INVITE
            elif name and choice != INVITE:
                self.add_error(
                    f"invitee_{number}",
                    _("A bot takes this seat: choose “invite a person” or leave the name empty."),
                )

    def _clean_bank(self, data: dict[str, Any]) -> None:
        """A preset, or the own numbers (both given, the limit at least the increment); own
        numbers with a preset chosen are an error rather than silently dropped."""
        choice = data.get("time_bank") or NO_BANK
        data["time_bank"] = choice
        increment, cap = data.get("bank_increment_hours"), data.get("bank_cap_hours")
        if choice != CUSTOM_BANK:
            for name in ("bank_increment_hours", "bank_cap_hours"):
                if data.get(name) is not None:
                    self.add_error(
                        name, _("Choose “My own numbers” to set the time bank yourself.")
                    )
            return
        if increment is None and "bank_increment_hours" not in self.errors:
            self.add_error("bank_increment_hours", _("How many hours each move adds."))
        if cap is None and "bank_cap_hours" not in self.errors:
            self.add_error("bank_cap_hours", _("The most hours the bank may hold."))
        if increment is not None and cap is not None and cap < increment:
            self.add_error(
                "bank_cap_hours",
                _("The bank must hold at least the %(n)s hours one move adds.") % {"n": increment},
            )

    def bank_hours(self) -> tuple[int, int]:
        """(hours added per move, the most hours the bank holds); after is_valid()."""
        data = self.cleaned_data
        choice = data.get("time_bank") or NO_BANK
        if choice == CUSTOM_BANK:
            return data["bank_increment_hours"], data["bank_cap_hours"]
        return BANK_PRESETS[choice]

    def game_create_kwargs(self) -> dict[str, Any]:
        """The keyword arguments for ``game_create`` (besides the creator); after is_valid()."""
        data = self.cleaned_data
        kind = data["kind"]
        return {
            "kind": kind,
            "player_count": data["player_count"],
            "options": {
                option: bool(data[name])
                for name, (option_kind, option) in self.option_fields.items()
                if option_kind == kind
            },
            "days_per_move": data["days_per_move"],
            "bank_increment_hours": self.bank_hours()[0],
            "bank_cap_hours": self.bank_hours()[1],
            # bots take the seats right after the creator; the remaining seats wait for people
            # (some of them held for the people invited: ``invitees``)
            "bots": [
                data[f"seat_{n}"]
                for n in range(1, OTHER_SEATS + 1)
                if data.get(f"seat_{n}") in BotKind.values
            ],
            "private": bool(data.get("private")),
        }

    def invitees(self) -> list[str]:
        """The display names and addresses of the people invited, in seat order; after
        is_valid(). Whether each names someone who may be invited is the service's check."""
        data = self.cleaned_data
        return [
            data[f"invitee_{n}"]
            for n in range(1, OTHER_SEATS + 1)
            if data.get(f"seat_{n}") == INVITE and data.get(f"invitee_{n}")
        ]
