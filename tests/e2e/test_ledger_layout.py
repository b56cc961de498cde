"""The statement reads on a phone: each line a card, its description the full width (not a
column a few characters wide); on a desk it stays a four-column table."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger.services import ledger_post_hand_events
from tests.ledger.helpers import make_hand, make_table

pytestmark = pytest.mark.e2e


def _cells(page):
    return page.evaluate("""() => Array.from(document.querySelectorAll('table.statement tbody tr:first-child td'))
        .map(td => { const r = td.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width}; })""")


def test_statement_lines_are_cards_on_a_phone_and_a_table_on_a_desk(asgi_server, browser, screenshots, club_setup):
    ann, ben, _ = club_setup.members
    hand = make_hand(make_table(club_setup.club, club_setup.organiser), [ann, ben])
    ledger_post_hand_events(
        hand=hand,
        seat_users={0: ann, 1: ben},
        created_by=None,
        events=[
            {"kind": "ante", "seat": 0, "amount": 25},
            {"kind": "ante", "seat": 1, "amount": 25},
            {"kind": "award", "seat": 0, "amount": 50},
        ],
    )
    url = asgi_server.url + reverse("ledger:statement", args=[club_setup.club.pk, ann.pk])
    for width, name in ((390, "phone"), (1280, "desk")):
        context = browser.new_context(viewport={"width": width, "height": 844})
        page = context.new_page()
        asgi_server.log_in(page, ann.username)
        page.goto(url)
        when, what, amount, balance = _cells(page)
        page.locator("table.statement").scroll_into_view_if_needed()
        screenshots(page, name)
        if name == "phone":
            assert what["w"] > 300  # the description has the card's width
            assert amount["y"] == when["y"] < what["y"] < balance["y"]  # date and amount, then what, then balance
            assert (
                page.evaluate(
                    "getComputedStyle(document.querySelector("
                    "'table.statement tbody td:nth-child(4)'), '::before').content"
                )
                == '"Balance "'
            )
        else:
            assert when["y"] == what["y"] == amount["y"] == balance["y"]  # one row of four columns
            assert page.locator("table.statement thead").is_visible()
        context.close()
