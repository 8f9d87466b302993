"""Shared pytest fixtures; pytest-django reads its settings from pyproject.toml."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Tests create many users: a fast hasher keeps the suite quick (never in production)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
