"""Fixtures of the API tests: players with tokens, and a client that sends a token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from api import tokens
from api.models import Scope


class ApiClient:
    """Django's test client with ``Authorization: Bearer`` on every call, JSON bodies."""

    def __init__(self, secret: str | None) -> None:
        self.client = Client(enforce_csrf_checks=True)
        self.headers = {"Authorization": f"Bearer {secret}"} if secret else {}

    def get(self, path: str, **extra: Any) -> Any:
        return self.client.get(path, headers={**self.headers, **extra})

    def post(self, path: str, data: Any = None, **extra: Any) -> Any:
        return self.client.post(
            path,
            data=data or {},
            content_type="application/json",
            headers={**self.headers, **extra},
        )


@pytest.fixture
def token_for() -> Callable[..., str]:
    def make(user: Any, *, play: bool = True, name: str = "test") -> str:
        scopes = [Scope.READ, Scope.PLAY] if play else [Scope.READ]
        return tokens.token_create(user=user, name=name, scopes=scopes).secret

    return make


@pytest.fixture
def api_for(token_for: Callable[..., str]) -> Callable[..., ApiClient]:
    def make(user: Any, *, play: bool = True) -> ApiClient:
        return ApiClient(token_for(user, play=play))

    return make
