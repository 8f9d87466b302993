"""Fixtures for the site's game tests: users and games in known positions."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import User

_counter = itertools.count(1)


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(name: str | None = None, **fields: Any) -> User:
        name = name or f"player{next(_counter)}"
        return User.objects.create_user(
            username=name, email=f"{name}@example.test", password="a long pass phrase", **fields
        )

    return make
