"""The security tests use the game tests' users."""

from tests.games.conftest import make_user  # noqa: F401  (a fixture, shared)
