"""Game, seat and event models (added by later issues)."""
