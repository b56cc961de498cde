"""Parts of the table area that every viewer sees alike, rendered once per table snapshot.

``{% public_part "name" %}...{% end_public_part %}`` (or ``{% public_part "name" key %}``, one part per
value of ``key``, e.g. a seat number): the enclosed part is rendered for the first member
whose area is made from a snapshot (games/selectors/snapshot.py) and the same text is inserted for every other
member's area made from it, in the same time zone and language. So the enclosed part must use only what
is the same for everyone who may see the table: public facts of the table and hand (the log, the board,
the previous hand), never the member (``user``, ``view.you``, own cards, own actions, ``row.is_me``) or
their access. Without a snapshot in the context the part is simply rendered.

``{% member_part "name" %}...{% end_member_part %}``: the opposite, a part that is the member's own
(their seat, cards, actions, clocks, links). The socket side renders the area once per snapshot with
each member part left as a mark (``area_shared``), and per member only these parts (``area_fill``), so
everything outside them must be the same for every viewer, and every condition around one of them
too: a member part sits directly in the area's template, not inside a loop or a ``with``.

``{% public_part "name" lasting %}``: a part that shows nothing but the table row, the seats' names
and the last finished hand is kept for the next versions of the same hand (``TableSnapshot.lasting``).
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable
from typing import Any

from django import template
from django.template.base import Template
from django.template.loader import get_template
from django.utils import timezone, translation

from games.selectors.snapshot import TableSnapshot

register = template.Library()


class PublicPartNode(template.Node):
    def __init__(self, name: str, nodelist: template.NodeList, key: template.base.FilterExpression | None,
                 *, lasting: bool) -> None:
        self.name = name
        self.nodelist = nodelist
        self.key = key
        self.lasting = lasting

    def render(self, context: Any) -> str:
        part = self.key.resolve(context) if self.key is not None else None
        return public_text(context, self.name, part, lambda: str(self.nodelist.render(context)), lasting=self.lasting)


def public_text(context: Any, name: str, part: Any, render: Callable[[], str], *, lasting: bool = False) -> str:
    """Part ``name`` (``part``: which one) of the snapshot in ``context``: ``render()`` the first time in
    this time zone and language, the same text after; rendered each time without a snapshot.
    ``lasting``: the part shows only the table row, the seats' names and the last finished hand, so the
    next versions of the same hand keep it (``TableSnapshot.lasting``)."""
    snapshot = context.get("snapshot")
    if not isinstance(snapshot, TableSnapshot):
        return render()
    key = ("public_part", name, part, *_locale(context), bool(context.get(_SHARED)))  # shared: member parts left as marks
    store = snapshot.lasting if lasting else snapshot.derived
    found = store.get(key)
    if found is None:
        found = store[key] = render()
    return str(found)


def _locale(context: Any) -> tuple[str, str | None]:
    """The time zone and language a part is rendered in (read once per area: ``part_locale``)."""
    found: tuple[str, str | None] = context.get("part_locale") or (timezone.get_current_timezone_name(),
                                                                   translation.get_language())
    return found


def lasting_text(context: Any, slot: Any, inputs: Any, render: Callable[[], str]) -> str:
    """A public part that several versions of a hand may share: ``slot`` (e.g. a seat) keeps the text
    rendered for ``inputs`` (hashable: everything the part shows) while they stay the same; new inputs
    render it anew. Rendered each time without a snapshot."""
    snapshot = context.get("snapshot")
    if not isinstance(snapshot, TableSnapshot):
        return render()
    key = ("lasting_text", slot, *_locale(context))
    kept = snapshot.lasting.get(key)
    if kept is None or kept[0] != inputs:
        kept = snapshot.lasting[key] = (inputs, render())
    return str(kept[1])


@register.tag("public_part")
def public_part(parser: Any, token: Any) -> PublicPartNode:
    bits = token.split_contents()
    lasting = bits[-1] == "lasting"
    if lasting:
        bits = bits[:-1]
    if len(bits) not in (2, 3) or bits[1][0] not in "\"'" or bits[1][-1] != bits[1][0]:
        raise template.TemplateSyntaxError('Use {% public_part "name" %}...{% end_public_part %}, or '
                                           '{% public_part "name" key %}, either ending in "lasting"')
    key = parser.compile_filter(bits[2]) if len(bits) == 3 else None
    nodelist = parser.parse(("end_public_part",))
    parser.delete_first_token()
    return PublicPartNode(bits[1][1:-1], nodelist, key, lasting=lasting)


class MemberPartNode(template.Node):
    def __init__(self, name: str, nodelist: template.NodeList) -> None:
        self.name = name
        self.nodelist = nodelist

    def render(self, context: Any) -> str:
        if context.get(_SHARED):
            return f"{_MARK}{self.name}\x00"
        return str(self.nodelist.render(context))


@register.tag("member_part")
def member_part(parser: Any, token: Any) -> MemberPartNode:
    bits = token.split_contents()
    if len(bits) != 2 or not re.fullmatch(r"([\"'])[a-z_]+\1", bits[1]):
        raise template.TemplateSyntaxError('Use {% member_part "name" %}...{% end_member_part %} (name: a-z and _)')
    nodelist = parser.parse(("end_member_part",))
    parser.delete_first_token()
    return MemberPartNode(bits[1][1:-1], nodelist)


_SHARED = "area_shared_render"  # set in the context of the shared render only
_MARK = f"\x00member-part-{secrets.token_hex(8)}:"  # never in rendered text: random, and NUL is not
_SPLIT = re.compile(re.escape(_MARK) + r"([a-z_]+)\x00")


@functools.lru_cache(maxsize=8)
def _member_parts(area: Template) -> dict[str, MemberPartNode]:
    found = [node for node in area.nodelist.get_nodes_by_type(MemberPartNode) if isinstance(node, MemberPartNode)]
    parts = {node.name: node for node in found}
    if len(parts) != len(found):
        raise template.TemplateSyntaxError(f"{area.name}: two member parts share a name")
    return parts


def area_template(name: str) -> Template:
    """The compiled template ``name`` (the Django engine's own, which the member parts live in)."""
    found: Template = get_template(name).template  # type: ignore[attr-defined]  # the Django backend's wrapper
    return found


def area_shared(area: Template, values: dict[str, Any]) -> tuple[str, ...]:
    """``area`` rendered once for every viewer (``values``: what they all see), as pieces: text, the
    name of a member part, text, ... (``area_fill`` puts a member's own parts in)."""
    text = area.render(template.Context({**values, _SHARED: True}))
    return tuple(_SPLIT.split(text))


def area_fill(area: Template, pieces: tuple[str, ...], values: dict[str, Any]) -> str:
    """A member's area: the shared ``pieces`` with each member part rendered from ``values`` (theirs).
    Numbers render unlocalised, as in the area's ``{% localize off %}``."""
    parts = _member_parts(area)
    context = template.Context(values, use_l10n=False)
    with context.render_context.push_state(area), context.bind_template(area):
        return "".join(piece if i % 2 == 0 else str(parts[piece].nodelist.render(context))
                       for i, piece in enumerate(pieces))
