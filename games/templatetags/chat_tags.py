"""{% chat_panel %}: the table chat as server-rendered HTML (autoescaped), so it works without JavaScript;
static/js/table.js keeps it live."""

from __future__ import annotations

from typing import Any

from django import template

from games.selectors.chat import chat_may_hide, chat_may_write, chat_recent
from games.services.chat import MAX_CHARS

register = template.Library()


@register.inclusion_tag("games/_chat.html", takes_context=True)
def chat_panel(context: Any) -> dict[str, Any]:
    table = context["table"]
    user = context["request"].user
    return {
        "table": table,
        "chat_lines": chat_recent(table=table),
        "max_chars": MAX_CHARS,
        "may_write": chat_may_write(table=table, user=user),
        "may_hide": chat_may_hide(table=table, user=user),
        "csrf_token": context.get("csrf_token"),
    }
