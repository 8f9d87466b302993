"""What the game pages and emails draw (step one of the split: the module moved whole)."""

from .actions import *  # noqa: F403
