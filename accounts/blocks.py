"""Blocking another player (issue 28): one row per blocker and blocked (``accounts.Block``).

A block works both ways where people would meet: neither is seated with the other (a table's
link, the lobby, the league matchmaker), and the blocked player cannot invite, challenge or
write to the blocker. It is never shown to the blocked player as such: they are told they
cannot join that table, as for any other reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Q

from .models import Block, User


def block(*, blocker: User, blocked: User) -> None:
    """Idempotent: blocking twice keeps one row; blocking oneself is refused (ValueError)."""
    if blocker.pk == blocked.pk:
        raise ValueError("a player cannot block themselves")
    try:
        with transaction.atomic():
            Block.objects.get_or_create(blocker=blocker, blocked=blocked)
    except IntegrityError:  # a racing request made the row first
        pass


def unblock(*, blocker: User, blocked: User) -> None:
    Block.objects.filter(blocker=blocker, blocked=blocked).delete()


def has_blocked(blocker_id: int, blocked_id: int) -> bool:
    return Block.objects.filter(blocker_id=blocker_id, blocked_id=blocked_id).exists()


def apart(user_id: int, others: Iterable[int]) -> bool:
    """Whether ``user_id`` and any of ``others`` blocked one another (one query)."""
    ids = [pk for pk in others if pk != user_id]
    if not ids:
        return False
    return Block.objects.filter(
        Q(blocker_id=user_id, blocked_id__in=ids) | Q(blocked_id=user_id, blocker_id__in=ids)
    ).exists()


def may_challenge(viewer: User | None, player: User) -> bool:
    """Whether ``viewer`` is offered a challenge to ``player`` (a profile, a finished table):
    a signed-in person other than them, neither a bot account, and no block either way."""
    if viewer is None or not viewer.is_authenticated or viewer.pk == player.pk:
        return False
    if player.is_bot or getattr(viewer, "is_bot", False):
        return False
    return not apart(viewer.pk, [player.pk])


def blocked_pairs(user_ids: Iterable[int]) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` where one blocked the other (the matchmaker's input)."""
    ids = list(user_ids)
    rows = Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list(
        "blocker_id", "blocked_id"
    )
    return {frozenset(row) for row in rows}


def blocked_by(blocker: User) -> list[User]:
    """The players ``blocker`` blocked, newest first (their settings page)."""
    return [b.blocked for b in Block.objects.filter(blocker=blocker).select_related("blocked")]
