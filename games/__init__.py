"""Games app: models, services and pages for games in progress.

Keep this file free of Django imports: ``games.engine`` is a pure rules package and must be
importable without configured settings.
"""
