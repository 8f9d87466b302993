"""``{% drawing "board" page %}...{% enddrawing %}``: the enclosed part of a game page drawn
once per position, language and viewer (games/drawings.py keys and stores it)."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

from games.drawings import DRAWINGS, OWN, PUBLIC, drawing_key, drawn, page_facts

register = template.Library()


class DrawingNode(template.Node):
    def __init__(
        self, nodelist: template.NodeList, name: str, page: template.base.FilterExpression
    ) -> None:
        self.nodelist = nodelist
        self.name = name
        self.page = page

    def render(self, context: template.Context) -> str:
        page = self.page.resolve(context)
        game = getattr(page, "game", None)
        if game is None or game.pk is None:
            return self.nodelist.render(context)
        viewer_seat = viewer_user = None
        if DRAWINGS[self.name] != PUBLIC:
            user = getattr(context.get("request"), "user", None)
            if page.viewer_seat is not None and user is not None and user.is_authenticated:
                viewer_seat, viewer_user = page.viewer_seat, user.pk
            elif DRAWINGS[self.name] == OWN:
                return self.nodelist.render(context)  # nobody's own: not cached
        key = drawing_key(
            self.name,
            game_id=game.pk,
            seq=game.seq,
            language=get_language() or "",
            names=[seat.name for seat in page.seats],
            facts=page_facts(game.status, page.seats),
            viewer_seat=viewer_seat,
            viewer_user=viewer_user,
        )
        return drawn(key, lambda: self.nodelist.render(context))


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
