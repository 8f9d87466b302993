"""``{% action_forms group %}``: the buttons of one group of the player's moves, each in its
form, written in Python: a turn shows a form per legal move, and the template's loop (the
address, the CSRF field, the hidden fields) cost more than the rest of the moves' section
(issue 21). The markup is the one games/_actions.html held in its loop, byte for byte; the
page's CSRF field is worked out once for all its forms (any masked token of the session's
secret is valid), not once per form."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.drawings import csrf_input
from games.presenters.actions import ActionGroup
from keltis_site.markup import esc

register = template.Library()



def csrf_field(context: template.Context) -> str:
    """What ``{% csrf_token %}`` draws, once per page and token (kept in the render context:
    a drawing is drawn with a placeholder token, games/drawings.py)."""
    token = context.get("csrf_token")
    cached = context.render_context.get("action_forms_csrf")
    if cached is None or cached[0] is not token:
        cached = context.render_context["action_forms_csrf"] = (token, csrf_input(token))
    return cached[1]


@register.simple_tag(takes_context=True)
def action_forms(context: template.Context, group: ActionGroup) -> SafeString:
    url, csrf = esc(context.get("act_url", "")), csrf_field(context)
    seq = esc(context["game"].seq)
    title = f'<span class="vh">{esc(group.title)}: </span>' if group.card else ""
    forms = []
    for choice in group.choices:
        extra = ""
        if choice.target:
            extra += f' data-target="{esc(choice.target)}"'
        if choice.place:
            extra += f' data-place="{esc(choice.place)}"'
        if choice.short != choice.label:
            extra += f' title="{esc(choice.label)}"'
        forms.append(
            f'\n      <form method="post" action="{url}" class="act-form">{csrf}\n'
            f'        <input type="hidden" name="action" value="{esc(choice.action)}">\n'
            f'        <input type="hidden" name="seq" value="{seq}">\n'
            f'        <button type="submit" class="act act-{esc(choice.style)}"{extra}>'
            f"{title}{esc(choice.short)}</button>\n"
            "      </form>\n    "
        )
    return mark_safe("".join(forms))
