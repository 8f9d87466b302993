"""Fixtures for the accounts tests: players who signed up and verified their address."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from allauth.account.models import EmailAddress

from accounts.models import User
from tests.accounts.helpers import PASSWORD


@pytest.fixture
def make_player(db: None) -> Callable[..., User]:
    """A player whose email address is verified, as after sign-up and confirmation."""

    def make(
        email: str = "anna@example.test", display_name: str = "Anna K", **fields: Any
    ) -> User:
        user = User.objects.create_user(
            username=display_name.lower().replace(" ", "_"),
            email=email,
            password=PASSWORD,
            display_name=display_name,
            **fields,
        )
        EmailAddress.objects.create(user=user, email=email, primary=True, verified=True)
        return user

    return make
