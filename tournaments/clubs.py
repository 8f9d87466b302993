"""Clubs: leagues that players run (issue 28).

A club is a League with a creator (``created_by``) and organisers; it may be private (not
listed, its page and games for its members only, joined by invitation). Its tables, seasons
and standings are a league's (tournaments.leagues): only who may create and run it is here.

Invitations to a club are the friends app's (friends.invitations with ``league=``): this app
must not import friends, so its pages call these services and friends calls ``league_join``.

Services: ``club_create``, ``organiser_add``, ``organiser_remove``, ``member_remove``,
``league_close``, ``league_update``. Selectors: ``is_verified``, ``club_refusal``,
``organisers_of``.
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.creation_limits import is_limited, lock_creator

from .leagues import LeagueError, league_create, league_settings_errors, may_organise
from .models import League, LeagueMember


def is_verified(user: Any) -> bool:
    """Whether ``user`` may create a club: staff, or a person (not a bot account) with a
    verified address. Sign-in already needs one; this keeps an account made otherwise (an
    import, a bot account, an address changed and not yet confirmed) from running a club."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_staff:
        return True
    if getattr(user, "is_bot", False):
        return False
    return EmailAddress.objects.filter(user_id=user.pk, verified=True).exists()


def clubs_running(user: Any) -> int:
    """The active leagues ``user`` created (what MAX_CLUBS_PER_PLAYER counts)."""
    return League.objects.filter(created_by_id=user.pk, active=True).count()


def club_refusal(user: Any) -> str | None:
    """Why ``user`` may not create a club now, worded for them, or None if they may. Inside
    a transaction it locks the creator's row, so two requests at once cannot both pass."""
    if not is_verified(user):
        return _("Only players with a verified email address can create a club.")
    if not is_limited(user):
        return None
    if transaction.get_connection().in_atomic_block:
        lock_creator(user)
    limit = settings.MAX_CLUBS_PER_PLAYER
    if clubs_running(user) >= limit:
        return ngettext(
            "You may run at most %(n)s club at once: close it before you create another.",
            "You may run at most %(n)s clubs at once: close one of them before you create another.",
            limit,
        ) % {"n": limit}
    return None


def club_create(*, creator: Any, private: bool = False, **settings_: Any) -> League:
    """A club: a league ``creator`` created and organises (``settings_`` are
    ``leagues.league_create``'s). Refused (LeagueError, nothing created) for a player without
    a verified address, or one running MAX_CLUBS_PER_PLAYER active clubs (staff: no limit)."""
    with transaction.atomic():
        refusal = club_refusal(creator)
        if refusal is not None:
            raise LeagueError(refusal)
        league = league_create(private=private, created_by=creator, **settings_)
        league.organisers.add(creator)
    return league


def organisers_of(league: League) -> list[Any]:
    """The club's organisers, its creator first, then by name."""
    people = list(league.organisers.all())
    return sorted(people, key=lambda u: (u.pk != league.created_by_id, u.public_name.lower(), u.pk))


def _locked_league(league_id: int) -> League:
    """The league row under lock (raises League.DoesNotExist for an unknown league)."""
    return League.objects.select_for_update().get(pk=league_id)


def _user(user: Any) -> Any:
    if isinstance(user, int):
        return get_user_model().objects.get(pk=user)
    return user


def organiser_add(*, league_id: int, by: Any, user: Any) -> League:
    """``by`` (an organiser, or staff) makes ``user``, an active member, a co-organiser.
    Idempotent for someone who organises it already."""
    user = _user(user)
    with transaction.atomic():
        league = _locked_league(league_id)
        if not may_organise(by, league):
            raise LeagueError(_("Only the club's organisers can do this."))
        if not LeagueMember.objects.filter(league=league, user=user, active=True).exists():
            raise LeagueError(
                _("%(name)s is not a member of this club: invite them first.")
                % {"name": user.public_name}
            )
        league.organisers.add(user)
    return league


def organiser_remove(*, league_id: int, by: Any, user: Any) -> League:
    """An organiser (or staff) takes away ``user``'s organiser role; a co-organiser may step
    down themselves. The creator always stays one: the club is theirs."""
    user = _user(user)
    with transaction.atomic():
        league = _locked_league(league_id)
        if not may_organise(by, league):
            raise LeagueError(_("Only the club's organisers can do this."))
        if user.pk == league.created_by_id:
            raise LeagueError(_("The club's creator is always one of its organisers."))
        league.organisers.remove(user)
    return league


def member_remove(*, league_id: int, by: Any, user: Any) -> LeagueMember:
    """An organiser (or staff) removes a member from the club: no new games for them there
    (the running ones are played to their end, as when a member leaves). An organiser is
    removed as organiser first; the creator cannot be removed."""
    user = _user(user)
    with transaction.atomic():
        league = _locked_league(league_id)
        if not may_organise(by, league):
            raise LeagueError(_("Only the club's organisers can do this."))
        if user.pk == league.created_by_id:
            raise LeagueError(_("The club's creator cannot be removed from it."))
        if league.organisers.filter(pk=user.pk).exists():
            raise LeagueError(
                _("%(name)s is an organiser: remove them as organiser first.")
                % {"name": user.public_name}
            )
        member = (
            LeagueMember.objects.select_for_update()
            .filter(league=league, user=user, active=True)
            .first()
        )
        if member is None:
            raise LeagueError(
                _("%(name)s is not a member of this club.") % {"name": user.public_name}
            )
        member.active = False
        member.save(update_fields=["active"])
    return member


def league_close(*, league_id: int, by: Any) -> League:
    """The club's creator (or staff) closes it: nobody joins, the matchmaker starts no new
    game, the running season ends on its date with no next one. It no longer counts towards
    the creator's limit of clubs."""
    with transaction.atomic():
        league = _locked_league(league_id)
        if not (by.is_staff or (league.created_by_id and league.created_by_id == by.pk)):
            raise LeagueError(_("Only the club's creator can close it."))
        if not league.active:
            raise LeagueError(_("This league is closed."))
        league.active = False
        league.save(update_fields=["active"])
    return league


#: the settings an organiser may change (the game is fixed: its ratings and standings are
#: the league's); see ``league_update``
EDITABLE = (
    "name", "min_players", "max_players", "days_per_move", "bank_increment_hours",
    "bank_cap_hours", "rating_min", "rating_max", "season_days", "bot_level", "private",
)  # fmt: skip


def league_update(*, league_id: int, by: Any, **values: Any) -> League:
    """An organiser (or staff) changes the league's settings (``EDITABLE``), under the rules of
    ``leagues.league_settings_errors``. They apply to the games and seasons the matchmaker
    starts from now on; running games keep their time control, the running season its end."""
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    with transaction.atomic():
        league = _locked_league(league_id)
        if not may_organise(by, league):
            raise LeagueError(_("Only the club's organisers can do this."))
        if "name" in values:
            values["name"] = (values["name"] or "").strip()
            if not values["name"] or len(values["name"]) > 80:
                raise LeagueError(_("A league needs a name of at most 80 characters."))
        merged = {field: getattr(league, field) for field in EDITABLE}
        merged.update(values, kind=league.kind)
        errors = league_settings_errors(merged)
        if errors:
            raise LeagueError(" ".join(errors.values()))
        for field, value in values.items():
            setattr(league, field, value)
        league.save(update_fields=list(values))
    return league
