"""Fixtures for the email tests: players, games in known positions, and reading emails.

Emails go to Django's locmem backend (``django.core.mail.outbox``, pytest-django's default).
"""

from __future__ import annotations

import email
import itertools
import re
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.engine import game_class
from games.engine.bots import RandomBot
from games.models import Game, GameStatus
from games.services import action_submit, game_create, game_finish_early, game_join
from games.state import engine_state, snapshot_rebuild
from notifications.models import Notification, NotificationKind

SITE = "https://keltis.example"
#: the seat-0 player's hand (reds, greens, yellows) and the seat-1 player's (blues, pinks):
#: no card name of one hand can turn up in an email about the other
HAND_0 = ["r1", "r5", "r9", "g2", "g6", "g9", "y3", "y7"]
HAND_1 = ["b1", "b2", "b3", "b4", "p1", "p2", "p3", "p4"]

_counter = itertools.count(1)


@pytest.fixture(autouse=True)
def _site(settings: Any) -> None:
    settings.SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(name: str | None = None, **fields: Any) -> User:
        name = name or f"player{next(_counter)}"
        fields.setdefault("display_name", name.capitalize())
        return User.objects.create_user(
            username=name, email=f"{name}@mail.example", password="a long pass phrase", **fields
        )

    return make


@dataclass
class Table:
    game: Game
    users: list[User]

    def refresh(self) -> Game:
        self.game.refresh_from_db()
        return self.game


def rig_hands(game: Game, hands: list[list[str]]) -> None:
    """Deal ``hands`` instead of the random deal (before any action), the rest into the deck."""
    cls = game_class(game.kind)
    pool = Counter(cls.ALL_CARDS)
    for hand in hands:
        pool.subtract(hand)
    rest = list(pool.elements())
    removed_n = cls.REMOVED_WITH_TWO if game.player_count == 2 else 0
    game.setup = {
        **game.setup,
        "hands": hands,
        "removed": rest[:removed_n],
        "deck": rest[removed_n:],
    }
    game.save(update_fields=["setup"])
    snapshot_rebuild(game)


@pytest.fixture
def table(make_user: Callable[..., User]) -> Callable[..., Table]:
    """A running two-player game: Anna in seat 0 (to move), Bela in seat 1, hands rigged."""

    def make(kind: str = "keltis", **anna_fields: Any) -> Table:
        anna = make_user(**anna_fields)
        bela = make_user()
        game = game_create(creator=anna, kind=kind, player_count=2)
        game_join(game_id=game.pk, user=bela)
        game.refresh_from_db()
        rig_hands(game, [HAND_0, HAND_1])
        game.refresh_from_db()
        assert game.status == GameStatus.RUNNING and game.to_move == 0
        return Table(game, [anna, bela])

    return make


def play_turn(table: Table, seed: int = 1) -> None:
    """The seat to move plays its whole turn (random legal actions), as on the game page."""
    game = table.refresh()
    seat = game.to_move
    bot = RandomBot(seed)
    while game.status == GameStatus.RUNNING and game.to_move == seat:
        action_submit(
            game_id=game.pk,
            seat=seat,
            action=bot.choose(engine_state(game)),
            expected_seq=game.seq,
            user=table.users[seat],
        )
        game = table.refresh()


def notification(
    game: Game | None, user: User, kind: str, seat: int | None = None, seq: int | None = None
) -> Notification:
    """A notification row as notifications.outbox would queue it (a test key: never a duplicate)."""
    return Notification.objects.create(
        key=f"test:{kind}:{next(_counter)}", kind=kind, user=user, game=game, seat=seat, seq=seq
    )


def turn_notification(table: Table, seat: int | None = None) -> Notification:
    game = table.refresh()
    seat = game.to_move if seat is None else seat
    return notification(game, table.users[seat], NotificationKind.TURN, seat, game.turn_seq)


def html_of(message: mail.EmailMessage) -> str:
    assert isinstance(message, mail.EmailMultiAlternatives)
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    return html


_ACTION_LINK = re.compile(re.escape(SITE) + r"/t/[^/\s\"]+/")


def action_links(text: str) -> list[str]:
    return _ACTION_LINK.findall(text)


def path_of(link: str) -> str:
    return link.removeprefix(SITE)


_FORM = re.compile(r'<form method="post" action="(/t/[^"]+/)"')
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def forms_in(html: str) -> list[str]:
    """The action-link forms of a page (where its buttons post)."""
    return _FORM.findall(html)


def post_form(client: Client, page_html: str, path: str, **data: str) -> Any:
    """Press a button of a page as a browser does: with the page's CSRF token."""
    match = _CSRF.search(page_html)
    assert match, "the page has no CSRF token"
    return client.post(path, {"csrfmiddlewaretoken": match.group(1), **data})


@pytest.fixture
def browser() -> Client:
    """An anonymous browser that enforces CSRF like a real one."""
    return Client(enforce_csrf_checks=True)


# -- a real SMTP server ---------------------------------------------------------------------------
class SmtpServer:
    """Keeps the messages it accepts and counts connections; refuses (451) the messages to
    ``refuse``, or every message while ``refuse_all``."""

    def __init__(self) -> None:
        self.recipients: list[str] = []
        self.messages: list[email.message.Message] = []
        self.peers: set[Any] = set()
        self.refuse: set[str] = set()
        self.refuse_all = False
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.peers.add(session.peer)
            if self.refuse_all or self.refuse & set(envelope.rcpt_tos):
                return "451 4.3.0 Try again later"
            self.recipients.extend(envelope.rcpt_tos)
            self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    """An SMTP server on loopback (aiosmtpd) that the site sends to. Its port is one the
    system hands out free, so parallel runs never collide."""
    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    handler = SmtpServer()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    yield handler
    controller.stop()


def game_over_rows(make_user: Callable[..., User]) -> list[Notification]:
    """A 4-player game decided early: one "game over" row per player, queued."""
    users = [make_user() for _ in range(4)]
    game = game_create(creator=users[0], kind="keltis", player_count=4)
    for user in users[1:]:
        game_join(game_id=game.pk, user=user)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        game_finish_early(game, engine_state(game), timezone.now())
    return list(Notification.objects.filter(game=game, kind=NotificationKind.FINISHED))
