"""Tournament models (added by later issues)."""
