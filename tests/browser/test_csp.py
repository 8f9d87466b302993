"""The pages pass the Content-Security-Policy in a real browser: no inline script, style or
event handler is blocked on any of the main pages, and every page carries the header."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User
from games.engine.bots import RandomBot
from games.models import Game
from games.services import action_submit, game_create, game_join
from games.state import engine_state

pytestmark = pytest.mark.django_db(transaction=True)

#: collects the browser's securitypolicyviolation events from the first script of each page
LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def running_game(kind: str) -> tuple[Game, User]:
    anna = User.objects.create_user(
        username=f"anna-{kind}", email=f"anna-{kind}@example.test", password="x" * 20
    )
    bela = User.objects.create_user(
        username=f"bela-{kind}", email=f"bela-{kind}@example.test", password="x" * 20
    )
    game = game_create(creator=anna, kind=kind, player_count=2)
    game_join(game_id=game.pk, user=bela)
    bot = RandomBot(3)
    for _ in range(4):
        game.refresh_from_db()
        action_submit(
            game_id=game.pk, seat=game.to_move, action=bot.choose(engine_state(game)),
            expected_seq=game.seq,
        )
    game.refresh_from_db()
    return game, anna if game.to_move == 0 else bela


def log_in(page: Any, base: str, user: User) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}]
    )


def test_the_main_pages_pass_the_content_security_policy(live_server: Any, page: Any) -> None:
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.add_init_script(LISTENER)
    base = live_server.url
    anonymous = ["/", "/games/", "/accounts/login/", "/accounts/signup/", "/api/docs/"]
    games = [running_game(kind) for kind in ("keltis", "keltis-cards")]
    seated = ["/games/mine/", "/games/new/", "/settings/email/", "/accounts/api/"]
    for game, _ in games:
        seated += [f"/games/{game.pk}/", f"/games/{game.pk}/history/"]

    def visit(path: str) -> None:
        response = page.goto(base + path)
        assert response is not None and response.status == 200, path
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy
        page.wait_for_load_state("load")
        assert page.evaluate("window.__cspViolations") == [], path

    for path in anonymous:
        visit(path)
    # the API docs page draws the schema's operations from this site's files alone
    page.goto(base + "/api/docs/")
    page.wait_for_selector(".opblock-summary-path")
    assert page.evaluate("window.__cspViolations") == []
    log_in(page, base, games[0][1])
    for path in seated:
        visit(path)
    # the game page of a seated player to move has its action buttons (forms) too
    assert page.locator("main").count() == 1
    blocked = [text for text in console if "Content Security Policy" in text]
    assert blocked == []
