"""Parts of the table area that every viewer sees alike, rendered once per table snapshot.

``{% public_part "name" %}...{% end_public_part %}`` (or ``{% public_part "name" key %}``, one part per
value of ``key``, e.g. a seat number): the enclosed part is rendered for the first member
whose area is made from a snapshot (games/snapshot.py) and the same text is inserted for every other
member's area made from it, in the same time zone and language. So the enclosed part must use only what
is the same for everyone who may see the table: public facts of the table and hand (the log, the board,
the previous hand), never the member (``user``, ``view.you``, own cards, own actions, ``row.is_me``) or
their access. Without a snapshot in the context the part is simply rendered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template
from django.utils import timezone, translation

from games.snapshot import TableSnapshot

register = template.Library()


class PublicPartNode(template.Node):
    def __init__(self, name: str, nodelist: template.NodeList, key: template.base.FilterExpression | None) -> None:
        self.name = name
        self.nodelist = nodelist
        self.key = key

    def render(self, context: Any) -> str:
        part = self.key.resolve(context) if self.key is not None else None
        return public_text(context, self.name, part, lambda: str(self.nodelist.render(context)))


def public_text(context: Any, name: str, part: Any, render: Callable[[], str]) -> str:
    """Part ``name`` (``part``: which one) of the snapshot in ``context``: ``render()`` the first time in
    this time zone and language, the same text after; rendered each time without a snapshot."""
    snapshot = context.get("snapshot")
    if not isinstance(snapshot, TableSnapshot):
        return render()
    locale = context.get("part_locale") or (timezone.get_current_timezone_name(), translation.get_language())
    key = ("public_part", name, part, *locale)
    found = snapshot.derived.get(key)
    if found is None:
        found = snapshot.derived[key] = render()
    return str(found)


@register.tag("public_part")
def public_part(parser: Any, token: Any) -> PublicPartNode:
    bits = token.split_contents()
    if len(bits) not in (2, 3) or bits[1][0] not in "\"'" or bits[1][-1] != bits[1][0]:
        raise template.TemplateSyntaxError('Use {% public_part "name" %}...{% end_public_part %}, or '
                                           '{% public_part "name" key %}')
    key = parser.compile_filter(bits[2]) if len(bits) == 3 else None
    nodelist = parser.parse(("end_public_part",))
    parser.delete_first_token()
    return PublicPartNode(bits[1][1:-1], nodelist, key)
