"""Reads about accounts that more than one place needs."""

from __future__ import annotations

from django.db.models import Q

from accounts.display_names import name_keys
from accounts.models import User


def display_name_taken(name: str, *, user: User | None = None) -> bool:
    """Whether another player than ``user`` has a name that reads like ``name`` (either of
    the keys of accounts.display_names is equal). The constraints on User keep this true
    under races; this check is what lets the forms say so in words."""
    keys = name_keys(name)
    if not keys.skeleton:
        return False  # no name: nothing to be confused with
    others = User.objects.filter(
        Q(display_name_skeleton=keys.skeleton)
        | Q(display_name_folded_skeleton=keys.folded_skeleton)
    )
    if user is not None and user.pk is not None:
        others = others.exclude(pk=user.pk)
    return others.exists()
