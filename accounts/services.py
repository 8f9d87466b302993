"""What a player changes about their own account, apart from email and password (allauth)."""

from __future__ import annotations

from typing import Any, NamedTuple

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.display_names import SIMILAR_NAME, settle
from accounts.models import EmailMode, User
from accounts.selectors import display_name_taken

LAST_HOUR = 23


def update_profile(
    user: User,
    *,
    display_name: str,
    time_zone: str,
    language: str,
    talk_in_records: bool | None = None,
) -> User:
    """Set the player's display name, time zone and language (and, from the settings page,
    whether their table talk may be in downloaded game records), and save them.

    All three are validated first, by the model fields' rules (the display name by
    validate_display_name, the time zone by validate_time_zone, the language by its choices).
    A display name that reads like another player's (accounts.display_names) is refused, also
    when another player took it a moment before (the constraints on the name's keys).
    If any is invalid, ValidationError is raised with the errors by field name, and neither
    the user object nor the database changes.
    """
    values = {"display_name": display_name.strip(), "time_zone": time_zone, "language": language}
    cleaned: dict[str, Any] = {}
    errors: dict[str, list[ValidationError]] = {}
    for name, value in values.items():
        try:
            # The model allows a blank name (public_name falls back); a player may not.
            if name == "display_name" and not value:
                raise ValidationError(_("Choose a display name."), code="required")
            cleaned[name] = User._meta.get_field(name).clean(value, user)
        except ValidationError as error:
            errors[name] = error.error_list
    if "display_name" in cleaned and display_name_taken(cleaned["display_name"], user=user):
        errors["display_name"] = [ValidationError(SIMILAR_NAME, code="similar")]
    if errors:
        raise ValidationError(errors)
    if talk_in_records is not None:  # the settings page's checkbox (None: left as it is)
        cleaned["talk_in_records"] = talk_in_records

    saved = [*cleaned, "display_name_skeleton", "display_name_folded_skeleton"]
    before = {name: getattr(user, name) for name in saved}
    for name, value in cleaned.items():
        setattr(user, name, value)
    try:
        with transaction.atomic():
            user.save(update_fields=list(cleaned))
    except IntegrityError:
        for name, value in before.items():
            setattr(user, name, value)
        if not display_name_taken(cleaned["display_name"], user=user):
            raise
        raise ValidationError(
            {"display_name": [ValidationError(SIMILAR_NAME, code="similar")]}
        ) from None
    return user


def set_language(user: User, language: str) -> User:
    """Save the player's language (the language menu): pages and every email to them use it.
    Raises ValidationError for a language the site does not ship; nothing changes then."""
    language = User._meta.get_field("language").clean(language, user)
    if user.language != language:
        user.language = language
        user.save(update_fields=["language"])
    return user


def update_email_preferences(user: User, *, email_mode: str, digest_hour: int) -> User:
    """How the player hears of their turns: every turn, a daily digest at a local hour, or
    not at all. Raises ValidationError (by field name) for a value the model refuses."""
    errors: dict[str, list[ValidationError]] = {}
    if email_mode not in EmailMode.values:
        errors["email_mode"] = [ValidationError(_("Choose one of the offered options."))]
    if not 0 <= digest_hour <= LAST_HOUR:
        errors["digest_hour"] = [ValidationError(_("Choose an hour from 0 to 23."))]
    if errors:
        raise ValidationError(errors)
    user.email_mode = email_mode
    user.digest_hour = digest_hour
    user.save(update_fields=["email_mode", "digest_hour"])
    return user


def email_unsubscribe(user: User) -> User:
    """No more game emails (an unsubscribe link, RFC 8058 one-click included)."""
    if user.email_mode != EmailMode.NONE:
        user.email_mode = EmailMode.NONE
        user.save(update_fields=["email_mode"])
    return user


class Renamed(NamedTuple):
    username: str
    old: str
    new: str


def display_name_keys_refresh(*, user_model: Any = User) -> list[Renamed]:
    """Compute every player's display-name keys again, and settle the names that no longer
    follow the rules (accounts.display_names.settle: tidied; of two that read alike the
    newer one numbered). For the migration that brought the keys (with its historical
    model) and after an upgrade of ICU, whose confusables data may map a character anew
    (manage.py refresh_display_name_keys). Returns the names changed."""
    renamed: list[Renamed] = []
    with transaction.atomic():
        users = {
            user.pk: user
            for user in user_model.objects.select_for_update()
            .order_by("pk")
            .only("pk", "username", "display_name")
        }
        for pk, name, keys in settle((pk, user.display_name) for pk, user in users.items()):
            user = users[pk]
            if name != user.display_name:
                renamed.append(Renamed(user.username, user.display_name, name))
            user.display_name = name
            user.display_name_skeleton, user.display_name_folded_skeleton = keys
        # all keys empty first: no row takes a key that another row holds until its update
        user_model.objects.update(display_name_skeleton="", display_name_folded_skeleton="")
        user_model.objects.bulk_update(
            users.values(),
            ["display_name", "display_name_skeleton", "display_name_folded_skeleton"],
            batch_size=500,
        )
    return renamed
