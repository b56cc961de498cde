"""The table area's Jinja2 environment (games/presentation/jinja.py) reads ``row.number`` on a dict as its key first,
as Django's templates do, and anything else as Jinja does."""

from __future__ import annotations

from django.template import engines


def test_a_dicts_key_comes_before_its_method_and_objects_keep_their_attributes() -> None:
    env = engines["jinja2"].env  # type: ignore[attr-defined]
    text = env.from_string(
        "{{ row.items }}|{{ row.number }}|{{ row.missing }}|{{ obj.real }}|{{ row.keys()|list|length }}"
    )
    assert text.render(row={"items": "its key", "number": 3}, obj=2 + 5j) == "its key|3||2.0|2"


def test_a_templates_globals_are_the_environments_in_a_plain_dict() -> None:
    """Every render copies its template's globals into its context: a plain dict of all the environment's, not
    Jinja's ChainMap over them (read key by key in Python at every render)."""
    env = engines["jinja2"].env  # type: ignore[attr-defined]
    for name in ("games/area/own_hand.jinja", "games/area/seat_actions.jinja", "games/_advance.jinja"):
        template = env.get_template(name)
        assert type(template.globals) is dict
        assert template.globals == dict(env.globals)
    assert env.from_string("{{ csrf_input('t') }}").render() == (
        '<input type="hidden" name="csrfmiddlewaretoken" value="t">'
    )
