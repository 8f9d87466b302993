"""Tournaments app: ratings, pairings and rounds.

Keep this file free of Django imports so the pure modules (elo, pairing) import without
configured settings.
"""
