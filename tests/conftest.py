"""Shared pytest fixtures; pytest-django reads its settings from pyproject.toml."""
