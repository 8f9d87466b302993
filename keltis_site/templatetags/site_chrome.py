"""``{% site_header %}`` and ``{% site_footer %}``: base.html's header (the quick link, the
menu, the turn count, the account links) and footer (the rules, the language menu), written in
Python: every page renders them, and their template nodes (eleven ``{% url %}`` reversals, the
``{% if %}`` chain of the menu, two ``{% csrf_token %}``) cost more than the rest of base.html
(issue 30). The markup is the one base.html held, byte for byte (tests/site/test_site_chrome.py
renders the old template beside it): a ``{% translate %}`` of a literal is not escaped (Django
marks it safe), a value is (``esc``); the strings are the template's own msgids
(``{% blocktranslate count %}`` gives ``%(n)s``), so makemessages finds them here."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import quote

from django import template
from django.template.defaulttags import CsrfTokenNode
from django.urls import URLResolver, get_resolver, get_script_prefix, get_urlconf, reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from keltis_site.markup import esc
from live.templatetags.live import live_turn_count

register = template.Library()

#: Django's own ``{% csrf_token %}``: the same field, and reading the context's lazy token is
#: what makes the response set the CSRF cookie
_CSRF = CsrfTokenNode()

#: the names ``{% url %}`` reversed without arguments, and the rules pages' (slug) arguments
_NAMES = ("home", "my_games", "lobby", "game_create", "league_list", "tournament_list",
          "leaderboard_index", "rules_index", "set_language")  # fmt: skip
_RULES = ("keltis", "keltis-cards")

#: url names -> the menu link they mark as the current page (``aria-current``)
_CURRENT = {
    "lobby": "lobby", "my_games": "my_games", "game_create": "game_create",
    "league_list": "league_list", "league_detail": "league_list",
    "tournament_list": "tournament_list", "tournament_detail": "tournament_list",
    "tournament_create": "tournament_list", "leaderboard": "leaderboard_index",
    "rules": "rules_index", "rules_index": "rules_index",
}  # fmt: skip
_ARIA_CURRENT = ' aria-current="page"'


def _site_urls() -> dict[str, str]:
    """The escaped addresses of the header's and footer's fixed links (``{% url %}`` escapes)."""
    return _urls_of(get_script_prefix(), get_resolver(get_urlconf()), get_language())


@lru_cache(maxsize=64)
def _urls_of(prefix: str, resolver: URLResolver, language: str | None) -> dict[str, str]:
    """The fixed links for one script prefix, URL configuration and language: all that
    ``reverse()`` of a name without namespace reads (a changed ROOT_URLCONF is a new resolver,
    Django's clear_url_caches), so a page pays for eleven reversals once per process."""
    urls = {name: esc(reverse(name)) for name in _NAMES}
    urls.update({kind: esc(reverse("rules", args=[kind])) for kind in _RULES})
    return urls


def _aria(menu: str, current: str | None) -> str:
    """`` aria-current="page"`` on the menu link ``menu`` of the page named ``current``."""
    return _ARIA_CURRENT if current is not None and _CURRENT.get(current) == menu else ""


def _login_link(path: str) -> str:
    """The log-in link back to this page (the ``urlencode`` filter, then escaped)."""
    login = _("Log in")
    return f'<a href="/accounts/login/?next={esc(quote(path))}">{login}</a>'


def _full_path(request: Any) -> str:
    """``{{ request.get_full_path }}``: "" without a request, as a template has it."""
    return request.get_full_path() if request is not None else ""


@register.simple_tag(takes_context=True)
def site_header(context: template.Context) -> SafeString:
    """The page's ``<header>``: on a phone one row (the name, the most important link, and
    "Menu", a <details> with the rest); on a wide screen the full navigation (site.css)."""
    request = context.get("request")
    user = context.get("user")
    signed_in = bool(user is not None and user.is_authenticated)
    current = getattr(getattr(request, "resolver_match", None), "url_name", None)
    turns = live_turn_count(context)
    urls = _site_urls()
    my_games = _("My games")
    if signed_in:
        quick_badge = list_badge = ""
        if turns:
            waiting = ngettext("%(n)s game waits for you", "%(n)s games wait for you", turns) % {
                "n": turns
            }
            quick_badge = (
                ' <span class="badge badge--turn"><span aria-hidden="true">'
                f'{turns}</span><span class="visually-hidden">{waiting}</span></span>'
            )
            list_badge = (
                ' <span class="badge badge--turn"><span class="badge__count" aria-hidden="true">'
                f'{turns}</span><span class="badge__text">{waiting}</span></span>'
            )
        quick = (
            f'<a href="{urls["my_games"]}"{_aria("my_games", current)}>{my_games}'
            f'<span id="live-turns-quick" data-live-region>{quick_badge}</span></a>'
        )
        profile = esc(reverse("player_profile", args=[user.username]))
        settings_text, logout = _("Settings"), _("Log out")
        account = (
            f'<a class="site-account__name" href="{profile}">{esc(user.public_name)}</a>\n'
            "              \n"
            f'              <a href="/accounts/settings/">{settings_text}</a>\n'
            '              <form class="inline-form" method="post" action="/accounts/logout/">\n'
            f"                {_CSRF.render(context)}\n"
            f'                <button type="submit" class="button-link">{logout}</button>\n'
            "              </form>"
        )
    else:
        list_badge = ""
        quick = _login_link(_full_path(request))
        signup = _("Sign up")
        account = (
            "\n              "
            f"{quick}\n"
            f'              <a class="button button--small" href="/accounts/signup/">{signup}</a>'
        )
    menu, main = _("Menu"), _("Main")
    lobby, new_game, leagues = _("Lobby"), _("New game"), _("Leagues")
    tournaments, ratings, rules = _("Tournaments"), _("Ratings"), _("Rules")
    return mark_safe(
        '<header class="site-header">\n'
        '    <div class="wrap site-header__inner">\n'
        f'      <a class="brand" href="{urls["home"]}">Keltis <span class="brand__by">by mail'
        "</span></a>\n"
        "      \n      \n      \n      \n      \n"
        '      <div class="site-quick">\n'
        "        \n"
        f"          {quick}\n"
        "        \n"
        "      </div>\n"
        '      <details class="site-menu">\n'
        f"        <summary>{menu}</summary>\n"
        '        <div class="site-menu__panel">\n'
        f'          <nav class="site-nav" aria-label="{main}">\n'
        "            <ul>\n"
        f'              <li><a href="{urls["lobby"]}"{_aria("lobby", current)}>{lobby}</a></li>\n'
        f'              <li><a href="{urls["my_games"]}"{_aria("my_games", current)}>'
        f'{my_games}</a><span id="live-turns" data-live-region>{list_badge}</span></li>\n'
        f'              <li><a href="{urls["game_create"]}"{_aria("game_create", current)}>'
        f"{new_game}</a></li>\n"
        f'              <li><a href="{urls["league_list"]}"{_aria("league_list", current)}>'
        f"{leagues}</a></li>\n"
        f'              <li><a href="{urls["tournament_list"]}"'
        f"{_aria('tournament_list', current)}>{tournaments}</a></li>\n"
        f'              <li><a href="{urls["leaderboard_index"]}"'
        f"{_aria('leaderboard_index', current)}>{ratings}</a></li>\n"
        f'              <li><a href="{urls["rules_index"]}"{_aria("rules_index", current)}>'
        f"{rules}</a></li>\n"
        "            </ul>\n"
        "          </nav>\n"
        '          <div class="site-account">\n'
        "            \n"
        f"              {account}\n"
        "            \n"
        "          </div>\n"
        "        </div>\n"
        "      </details>\n"
        "      \n"
        "    </div>\n"
        "  </header>"
    )


@register.simple_tag(takes_context=True)
def site_footer(context: template.Context) -> SafeString:
    """The page's ``<footer>``: the rules, and the language menu (each language in its own
    name: settings.LANGUAGES, untranslated, from the i18n context processor)."""
    urls = _site_urls()
    language = context.get("LANGUAGE_CODE")
    options = "".join(
        f'<option value="{esc(code)}" lang="{esc(code)}"'
        f"{' selected' if code == language else ''}>{esc(name)}</option>"
        for code, name in context.get("LANGUAGES") or ()
    )
    about = _("Keltis by mail: the board game and the card game, one move at a time.")
    board_rules, card_rules = _("Rules of Keltis"), _("Rules of the card game")
    label, change = _("Language"), _("Change")
    return mark_safe(
        '<footer class="site-footer">\n'
        '    <div class="wrap">\n'
        f"      <p>{about}\n"
        f'        <a href="{urls["keltis"]}">{board_rules}</a> ·\n'
        f'        <a href="{urls["keltis-cards"]}">{card_rules}</a></p>\n'
        "      \n"
        '      <form class="language-menu" method="post" '
        f'action="{urls["set_language"]}">\n'
        f"        {_CSRF.render(context)}\n"
        '        <input type="hidden" name="next" '
        f'value="{esc(_full_path(context.get("request")))}">\n'
        f'        <label for="language-menu">{label}</label>\n'
        '        <select id="language-menu" name="language">\n'
        f"          {options}\n"
        "        </select>\n"
        f'        <button type="submit" class="button--small">{change}</button>\n'
        "      </form>\n"
        "    </div>\n"
        "  </footer>"
    )
