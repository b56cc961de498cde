"""Script or style smuggled into a page (a name, a chat line, a future template slip) runs in members'
browsers unless the Content-Security-Policy forbids it; and the site's own pages must work under it.
Driven in a real browser (Debian's chromium)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger.services import ledger_post_hand_events
from tests.accounts.factories import PASSWORD
from tests.e2e.conftest import asgi_server, browser, end_server_sessions  # noqa: F401 - fixtures
from tests.ledger.helpers import make_hand, make_table

pytestmark = pytest.mark.e2e


def test_an_injected_inline_script_does_not_run_and_the_pages_raise_no_violation(
    asgi_server,  # noqa: F811
    browser,  # noqa: F811
    club_setup,
):
    ann, ben, _ = club_setup.members
    hand = make_hand(make_table(club_setup.club, club_setup.organiser), [ann, ben])
    table = make_table(club_setup.club, club_setup.organiser)  # no hand yet: a waiting table
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
    context = browser.new_context()
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.goto(asgi_server.url + reverse("login"))
    page.fill("input[name=username]", ann.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(asgi_server.url + "/")

    club = club_setup.club.pk
    for path in (
        reverse("home"),
        reverse("club_detail", args=[club]),
        reverse("games:lobby", args=[club]),
        reverse("games:table", args=[table.pk]),
        reverse("ledger:chart", args=[club]),
        reverse("ledger:balance_sheet", args=[club]),
        reverse("profile"),
    ):
        response = page.goto(asgi_server.url + path)
        assert response is not None and response.status == 200, path
        page.wait_for_load_state("networkidle")
    assert violations == []

    injected = page.evaluate("""() => new Promise(resolve => {
        window.injected = 'no';
        const script = document.createElement('script');
        script.textContent = "window.injected = 'yes'";
        document.body.appendChild(script);
        const div = document.createElement('div');
        div.innerHTML = '<img src="x" onerror="window.injected = \\'yes\\'">';
        document.body.appendChild(div);
        setTimeout(() => resolve(window.injected), 300);
    })""")
    assert injected == "no"
    assert violations  # the browser reported what it blocked
    context.close()
