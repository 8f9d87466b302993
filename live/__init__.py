"""Live pages: every open page of a game hears of each committed change within a second.

The pushed message says only "game G is at seq S, whose turn, which status" (``messages``):
never a card. A page that hears of a change fetches its own view again over the ordinary
authenticated HTTP, so what it shows is exactly what a reload would show it.

Publishers (web processes, Celery workers) send each change after its commit (``publish``)
over ``transport``: Redis pub/sub in production, a Unix datagram socket on the embedded
default. The stream server (uvicorn running ``keltis_site.asgi``) listens once per process
(``hub``) and fans the change out to its Server-Sent Events streams (``views``).
"""
