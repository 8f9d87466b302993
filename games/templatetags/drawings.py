"""``{% drawing "board" page %}...{% enddrawing %}``: the enclosed part of a game page drawn
once per position, language and viewer (games/drawings.py keys and stores it)."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

from games.drawings import (
    DRAWINGS,
    OWN,
    PUBLIC,
    PageDrawings,
    drawing_key,
    drawn,
    page_facts,
)

register = template.Library()


class DrawingNode(template.Node):
    def __init__(
        self,
        nodelist: template.NodeList,
        name: str,
        page: template.base.FilterExpression,
        siblings: list[DrawingNode],
    ) -> None:
        self.nodelist = nodelist
        self.name = name
        self.page = page
        #: every drawing of the same template (this one too): read from the cache together
        self.siblings = siblings

    def key(self, context: template.Context) -> str | None:
        """The drawing's key in this context; None when it is not cached (no game, or a
        viewer's own drawing with no seated viewer)."""
        page = self.page.resolve(context)
        game = getattr(page, "game", None)
        if game is None or game.pk is None:
            return None
        viewer_seat = viewer_user = None
        if DRAWINGS[self.name] != PUBLIC:
            user = getattr(context.get("request"), "user", None)
            if page.viewer_seat is not None and user is not None and user.is_authenticated:
                viewer_seat, viewer_user = page.viewer_seat, user.pk
            elif DRAWINGS[self.name] == OWN:
                return None  # nobody's own: not cached
        return drawing_key(
            self.name,
            game_id=game.pk,
            seq=game.seq,
            language=get_language() or "",
            names=[seat.name for seat in page.seats],
            facts=page_facts(game.status, page.seats),
            viewer_seat=viewer_seat,
            viewer_user=viewer_user,
        )

    def render(self, context: template.Context) -> str:
        key = self.key(context)
        if key is None:
            return self.nodelist.render(context)
        request = context.get("request")
        if request is None:  # a page rendered outside a request: one drawing at a time
            return drawn(key, lambda: self.nodelist.render(context))
        drawings = PageDrawings.for_request(
            request, lambda: [k for node in self.siblings if (k := node.key(context)) is not None]
        )
        return drawings.drawn(key, lambda: self.nodelist.render(context))


@register.tag("drawing")
def do_drawing(parser: template.base.Parser, token: template.base.Token) -> DrawingNode:
    bits = token.split_contents()
    if len(bits) != 3 or bits[1].strip("\"'") not in DRAWINGS:
        raise template.TemplateSyntaxError(
            f'{{% drawing "<{"|".join(DRAWINGS)}>" page %}}: the drawing\'s name and the page'
        )
    nodelist = parser.parse(("enddrawing",))
    parser.delete_first_token()
    siblings = parser.extra_data.setdefault("drawings", [])
    node = DrawingNode(nodelist, bits[1].strip("\"'"), parser.compile_filter(bits[2]), siblings)
    siblings.append(node)
    return node
