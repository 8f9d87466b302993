"""``{% drawing "board" page %}...{% enddrawing %}``: the enclosed part of a game page drawn
once per position, language and viewer (games/drawings.py keys and stores it), with a
placeholder CSRF token that the request's own replaces whenever it is served."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from games.drawings import (
    CSRF_PLACEHOLDER,
    DRAWINGS,
    OWN,
    PUBLIC,
    PageDrawings,
    csrf_input,
    drawing_facts,
    drawing_key,
    drawn,
    with_request_token,
)

register = template.Library()


def page_key(name: str, page: Any, context: template.Context) -> str | None:
    """Drawing ``name``'s key on ``page`` in this context; None when it is not cached (no game,
    or a viewer's own drawing with no seated viewer)."""
    game = getattr(page, "game", None)
    if game is None or game.pk is None:
        return None
    viewer_seat = viewer_user = None
    if DRAWINGS[name] != PUBLIC:
        user = getattr(context.get("request"), "user", None)
        if page.viewer_seat is not None and user is not None and user.is_authenticated:
            viewer_seat, viewer_user = page.viewer_seat, user.pk
        elif DRAWINGS[name] == OWN:
            return None  # nobody's own: not cached
    return drawing_key(
        name,
        game_id=game.pk,
        seq=game.seq,
        language=get_language() or "",
        names=[seat.name for seat in page.seats],
        facts=drawing_facts(name, page),
        viewer_seat=viewer_seat,
        viewer_user=viewer_user,
    )


class DrawingNode(template.Node):
    def __init__(
        self, nodelist: template.NodeList, name: str, page: template.base.FilterExpression
    ) -> None:
        self.nodelist = nodelist
        self.name = name
        self.page = page

    def render(self, context: template.Context) -> str:
        page = self.page.resolve(context)
        key = page_key(self.name, page, context)
        if key is None:
            return self.nodelist.render(context)
        request = context.get("request")
        if request is None:  # a page rendered outside a request: one drawing at a time
            html = drawn(key, lambda: self.draw(context))
        else:
            # every drawing a page may show (those of its included templates too; the card
            # game's table on a board game's page, unused, among them) read in one round trip
            drawings = PageDrawings.for_request(
                request,
                lambda: [k for name in DRAWINGS if (k := page_key(name, page, context))],
            )
            html = drawings.drawn(key, lambda: self.draw(context))
        return mark_safe(with_request_token(html, lambda: csrf_input(context.get("csrf_token"))))

    def draw(self, context: template.Context) -> SafeString:
        """The drawing as stored: with the placeholder for the request's CSRF token."""
        with context.push(csrf_token=CSRF_PLACEHOLDER):
            return self.nodelist.render(context)


@register.tag("drawing")
def do_drawing(parser: template.base.Parser, token: template.base.Token) -> DrawingNode:
    bits = token.split_contents()
    if len(bits) != 3 or bits[1].strip("\"'") not in DRAWINGS:
        raise template.TemplateSyntaxError(
            f'{{% drawing "<{"|".join(DRAWINGS)}>" page %}}: the drawing\'s name and the page'
        )
    nodelist = parser.parse(("enddrawing",))
    parser.delete_first_token()
    return DrawingNode(nodelist, bits[1].strip("\"'"), parser.compile_filter(bits[2]))
