"""``{% site_header %}`` and ``{% site_footer %}`` (keltis_site/templatetags/site_chrome.py)
write the bytes base.html's header and footer wrote as template markup (issue 30).

base_before_chrome.html is base.html as it was: its header and footer are put back in place of
the two tags (the rest of base.html as it is now), and every page here is rendered with that
template and with the real one, the bytes compared: signed in or not, in several languages,
on every page the menu marks, with 0, 1 and 3 games waiting, with a hostile name and path.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.template import engines
from django.test import Client, RequestFactory, override_settings
from django.utils import translation

from games.services import game_create_seated

OLD_BASE = Path(__file__).with_name("base_before_chrome.html")
BASE = Path(settings.BASE_DIR) / "templates" / "base.html"

HOSTILE_NAME = "<b>\"Ann\" & 'co'</b>"
HOSTILE_QUERY = "?next=<script>alert('x')</script>&q=\"a b\"%20&é=ü#"
#: what the CSRF context processor hands out in these tests (the real one is masked afresh
#: each request, so two renders would differ): markup characters, to see them escaped alike
TOKEN = "tok<&>\"'en"

#: the url names the menu marks as the current page, and some it does not (the ratings link is
#: marked on a leaderboard, not on their index: base.html's own test)
CURRENT_NAMES = (
    "my_games", "lobby", "game_create", "league_list", "league_detail", "tournament_list",
    "tournament_detail", "tournament_create", "leaderboard", "leaderboard_index", "rules",
    "rules_index", "home", None,
)  # fmt: skip


def _between(text: str, start: str, end: str) -> str:
    """The part of ``text`` from ``start`` to ``end``, both included."""
    first = text.index(start)
    return text[first : text.index(end, first) + len(end)]


def old_base(new: str | None = None) -> str:
    """base.html with the header and footer the template wrote (base_before_chrome.html)."""
    old, new = OLD_BASE.read_text(), new if new is not None else BASE.read_text()
    header = _between(old, '<header class="site-header">', "</header>")
    footer = _between(old, '<footer class="site-footer">', "</footer>")
    assert new.count("{% site_header %}") == 1 and new.count("{% site_footer %}") == 1
    return new.replace("{% site_header %}", header).replace("{% site_footer %}", footer)


@contextmanager
def base_template(text: str | None) -> Iterator[None]:
    """Pages rendered with ``text`` as base.html (None: the real one)."""
    templates = copy.deepcopy(settings.TEMPLATES)
    loaders: list[Any] = [
        "django.template.loaders.filesystem.Loader",
        "django.template.loaders.app_directories.Loader",
    ]
    if text is not None:
        loaders.insert(0, ("django.template.loaders.locmem.Loader", {"base.html": text}))
    templates[0]["APP_DIRS"] = False
    templates[0]["OPTIONS"]["loaders"] = loaders
    with override_settings(TEMPLATES=templates):
        source = engines["django"].get_template("base.html").template.source
        assert source == (text if text is not None else BASE.read_text())
        yield


@pytest.fixture(autouse=True)
def fixed_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CSRF context processor's token, fixed; the real ``get_token`` still runs when the
    page reads it (that is what sets the cookie, compared too)."""
    from django.template import context_processors

    real = context_processors.get_token

    def get_token(request: Any) -> str:
        real(request)
        return TOKEN

    monkeypatch.setattr(context_processors, "get_token", get_token)


@pytest.fixture
def player(make_user: Callable[..., Any]) -> Any:
    """A player with a hostile display name, seated in a running game."""
    user = make_user("anna.b+x", display_name="placeholder")
    # the model's validator would refuse markup; the page must escape it all the same
    type(user).objects.filter(pk=user.pk).update(display_name=HOSTILE_NAME)
    user.refresh_from_db()
    return user


def both(render: Callable[[], tuple[bytes, object]]) -> tuple[tuple[bytes, object], ...]:
    """``render()`` with the old base.html and with the real one."""
    with base_template(old_base()):
        old = render()
    with base_template(None):
        new = render()
    return old, new


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ru", "de", "hu"])
def test_pages_are_the_same_bytes(
    player: Any, make_user: Callable[..., Any], language: str
) -> None:
    other = make_user()
    game = game_create_seated(kind="keltis", seats=[player, other])
    paths = ["/", "/games/", f"/games/{game.pk}/", "/no-such-page/", f"/games/{HOSTILE_QUERY}",
             f"/no/<such>/'page'/{HOSTILE_QUERY}"]  # fmt: skip
    type(player).objects.filter(pk=player.pk).update(language=language)
    for signed_in in (False, True):
        # the log-in page redirects a player who is in; the settings page a visitor
        for path in [*paths, "/accounts/settings/" if signed_in else "/accounts/login/"]:

            def get(path: str = path, signed_in: bool = signed_in) -> tuple[bytes, object]:
                client = Client(HTTP_ACCEPT_LANGUAGE=language)
                if signed_in:
                    client.force_login(player)
                response = client.get(path)
                return response.content, (response.status_code, "csrftoken" in response.cookies)

            (old, old_meta), (new, new_meta) = both(get)
            assert new_meta[0] in (200, 404) and b'<header class="site-header">' in new, path
            assert new == old, (path, signed_in)
            assert new_meta == old_meta, (path, signed_in)
            account = _between(new.decode(), '<div class="site-account">', "</div>")
            assert ("&lt;b&gt;&quot;Ann&quot; &amp; &#x27;co&#x27;" in account) == signed_in


@pytest.mark.django_db
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_every_menu_mark_turn_count_and_language(
    player: Any, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    for turns in (0, 1, 3):
        # the count is read with the page's marks (live_attrs, on <body>), else on its own
        monkeypatch.setattr("live.templatetags.live.turn_count", lambda user_id, n=turns: n)
        monkeypatch.setattr(
            "live.templatetags.live.page_reads", lambda n=turns, **page: ({}, n)
        )
        for user in (AnonymousUser(), player):
            for current in CURRENT_NAMES:

                def render(user: Any = user, current: str | None = current) -> tuple[bytes, object]:
                    request = RequestFactory().get(f"/rules/{HOSTILE_QUERY}")
                    request.user = user
                    request.resolver_match = current and SimpleNamespace(url_name=current)
                    with translation.override(language):
                        html = (
                            engines["django"]
                            .from_string('{% extends "base.html" %}')
                            .render({}, request)
                        )
                    return html.encode(), request.META.get("CSRF_COOKIE_NEEDS_UPDATE")

                (old, old_cookie), (new, new_cookie) = both(render)
                assert new == old, (turns, user, current)
                # what the matrix varies shows in the page
                assert (b"badge--turn" in new) == bool(turns and user is player)
                marked = current not in ("leaderboard_index", "home", None)
                assert (b'aria-current="page"' in new) == marked
                assert new_cookie == old_cookie is True


@pytest.mark.django_db
def test_one_byte_apart_is_seen(player: Any) -> None:
    """The comparison above fails on a byte: a space added to the old menu shows."""
    request = RequestFactory().get("/")
    request.user = player
    request.resolver_match = None
    changed = old_base().replace("</summary>", " </summary>", 1)
    html = {}
    for name, text in (("changed", changed), ("new", None)):
        with base_template(text):
            html[name] = (
                engines["django"].from_string('{% extends "base.html" %}').render({}, request)
            )
    assert html["changed"] != html["new"]
    assert html["changed"].replace(" </summary>", "</summary>") == html["new"]
