"""The table area's forms (templates/jinja2/games/area.jinja): on the page each carries the page's CSRF
token and posts without JavaScript; a private frame's carry none (the page's script adds it)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

import engine
from games import services
from games.live.render import private_frame
from games.models import Hand
from games.selectors.snapshot import table_snapshot_read
from tests.games.helpers import fixed_deck, make_table
from tests.games.test_piranha_game import BOARD_1, HOLES_1

_TOKEN = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)">')


@pytest.mark.django_db
def test_the_pages_area_forms_carry_the_csrf_token_and_post_without_script(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(ante=25), players=[a, b, c])
    services.table_start(table_id=table.pk, user=a, deck=fixed_deck(HOLES_1, BOARD_1, button=1))
    client = Client(enforce_csrf_checks=True)
    client.force_login(a, backend="django.contrib.auth.backends.ModelBackend")
    html = client.get(reverse("games:table", args=[table.pk])).content.decode()
    area = html[html.index('<div id="table-live"') :]
    assert 'name="action"' in area  # a's turn: the action buttons, and the seat's own forms
    assert area.count("<form") >= 3 and area.count("<form") == len(_TOKEN.findall(area))
    token = _TOKEN.findall(area)[0]
    hand = Hand.objects.get(table=table)
    refused = client.post(
        reverse("games:hand_act", args=[table.pk]), {"hand": hand.pk, "version": hand.version, "action": "in"}
    )
    assert refused.status_code == 403
    posted = client.post(
        reverse("games:hand_act", args=[table.pk]),
        {"csrfmiddlewaretoken": token, "hand": hand.pk, "version": hand.version, "action": "in"},
    )
    assert posted.status_code == 302
    hand.refresh_from_db()
    assert hand.version == 1

    snapshot = table_snapshot_read(table_id=table.pk, hand_id=hand.pk)
    assert snapshot is not None
    pushed = "".join(json.loads(private_frame(snapshot, b))["parts"].values())
    assert "<form" in pushed and "csrfmiddlewaretoken" not in pushed
    # The away switch brings the member back where they pressed it: the page's own address (with its
    # query), and the table's from a private frame.
    table_path = reverse("games:table", args=[table.pk])
    assert f'name="next" value="{table_path}"' in pushed
    page = client.get(table_path + "?deck=four").content.decode()
    assert f'name="next" value="{table_path}?deck=four"' in page
