"""Permission matrix over every URL of the games app: anonymous, non-member, member, organiser;
spectators allowed or not."""

from __future__ import annotations

import pytest

import engine
from games import services
from tests.conftest import rows_kept_for_module
from tests.games.helpers import make_rule_set, make_table

ANON, OUTSIDER, MEMBER, ORGANISER, PLAYER = "anonymous", "outsider", "member", "organiser", "player"


_kept_rows, world = rows_kept_for_module("world", lambda setup: _world(setup))  # about 0.2 s a case made once


def _world(club_setup):
    club = club_setup.club
    a, b, _ = club_setup.members
    rule_set = make_rule_set(club, club_setup.organiser, engine.PiranhaRules(), name="Open")
    open_table = make_table(club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=open_table.pk, user=a)
    services.hand_act(hand_id=hand.pk, user=a, action={"type": "out"}, version=0)
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "out"}, version=1)
    closed = make_table(club, club_setup.organiser, engine.PiranhaRules(), players=[a, b], spectators_allowed=False)
    closed_hand = services.table_start(table_id=closed.pk, user=a)
    services.hand_act(hand_id=closed_hand.pk, user=a, action={"type": "out"}, version=0)
    services.hand_act(hand_id=closed_hand.pk, user=b, action={"type": "out"}, version=1)
    users = {
        OUTSIDER: club_setup.outsider,
        MEMBER: club_setup.members[2],
        ORGANISER: club_setup.organiser,
        PLAYER: a,
        ANON: None,
    }
    from clubhouse.services import season_open
    from games.services.chat import chat_post

    line = chat_post(table_id=open_table.pk, user=a, text="hello")
    season = season_open(club=club, user=club_setup.organiser, name="Spring")
    ids = {
        "club": club.pk,
        "rs": rule_set.pk,
        "v": rule_set.versions.get().pk,
        "t": open_table.pk,
        "h": hand.pk,
        "ct": closed.pk,
        "ch": closed_hand.pk,
        "m": line.pk,
        "s": season.pk,
        "u": a.pk,
    }
    return users, ids


# (method, url, expected status by role); 200 = the page, 302 = the form redirects back (with a message)
MATRIX = [
    ("get", "/clubs/{club}/rules/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/rules/new/piranha/", {MEMBER: 403, ORGANISER: 200}),
    ("post", "/clubs/{club}/rules/new/piles/", {MEMBER: 403, ORGANISER: 200}),
    ("get", "/clubs/{club}/rules/{rs}/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/rules/{rs}/edit/", {MEMBER: 403, ORGANISER: 200}),
    ("post", "/clubs/{club}/rules/{rs}/edit/", {MEMBER: 403, ORGANISER: 200}),
    ("get", "/clubs/{club}/rules/versions/{v}/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/tables/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/tables/new/", {MEMBER: 200, ORGANISER: 200}),
    ("post", "/clubs/{club}/tables/new/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/tables/{t}/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/tables/{t}/sit/", {MEMBER: 200, ORGANISER: 200}),
    # Practice: any member opens one (an empty form goes back to the lobby with a message); the coach speaks
    # at practice tables only (tests/games/test_practice.py), so a money table refuses it to everyone.
    ("post", "/clubs/{club}/practice/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("post", "/tables/{t}/coach/", {MEMBER: 403, ORGANISER: 403, PLAYER: 403}),
    ("post", "/tables/{t}/sit/", {MEMBER: 200, ORGANISER: 200}),
    ("post", "/tables/{t}/sit-out/", {MEMBER: 302, PLAYER: 302}),
    ("get", "/tables/{t}/sit-out/", {MEMBER: 405}),
    ("post", "/tables/{t}/sit-in/", {MEMBER: 302, PLAYER: 302}),
    ("post", "/tables/{t}/leave/", {MEMBER: 302}),
    ("post", "/tables/{t}/start/", {MEMBER: 302, PLAYER: 302}),
    ("post", "/tables/{t}/act/", {MEMBER: 302, PLAYER: 302}),
    ("get", "/tables/{t}/act/", {MEMBER: 405}),
    # A new game: players of a finished game only (a running table refuses with a message).
    ("post", "/tables/{t}/new-game/", {MEMBER: 302, PLAYER: 302}),
    ("get", "/tables/{t}/new-game/", {MEMBER: 405}),
    # Closing a table: organisers only (a post without a reason is refused with the page, 400).
    ("get", "/tables/{t}/close/", {MEMBER: 403, PLAYER: 403, ORGANISER: 200}),
    ("post", "/tables/{t}/close/", {MEMBER: 403, PLAYER: 403, ORGANISER: 400}),
    # Advance actions and chat: anonymous to the login, other clubs 404; members get the form's redirect.
    ("post", "/tables/{t}/advance/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("post", "/tables/{t}/advance/withdraw/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("post", "/tables/{t}/chat/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("post", "/chat/{m}/hide/", {MEMBER: 302, PLAYER: 302, ORGANISER: 302}),
    ("get", "/tables/{t}/hands/", {MEMBER: 200, PLAYER: 200}),
    ("get", "/tables/{t}/cut/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/tables/{ct}/cut/", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    # A cut is JSON signed by a device key (docs/fairness.md): a form's post is refused in words.
    ("post", "/tables/{t}/cut/", {MEMBER: 400, PLAYER: 400}),
    ("get", "/tables/{t}/cuts/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/tables/{ct}/cuts/", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    ("post", "/tables/{t}/cut-complaints/", {MEMBER: 400, PLAYER: 400}),
    ("post", "/tables/{ct}/cut-complaints/", {MEMBER: 403, PLAYER: 400}),
    ("get", "/hands/{h}/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    # Spectators not allowed: the players see it, other members get 403.
    ("get", "/tables/{ct}/", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    ("get", "/tables/{ct}/hands/", {MEMBER: 403, PLAYER: 200}),
    ("get", "/hands/{ch}/", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    # The shuffle proof: its export follows the hand page; opening a hand is an organiser's ruling.
    ("get", "/hands/{h}/proof.json", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/hands/{ch}/proof.json", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    # The replay: who may open the hand's page.
    ("get", "/hands/{h}/replay/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/hands/{ch}/replay/", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    ("get", "/hands/{h}/replay.json", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/hands/{ch}/replay.json", {MEMBER: 403, ORGANISER: 403, PLAYER: 200}),
    # The hand so far: who may watch the table; a finished hand sends to its replay (the JSON: 409).
    ("get", "/hands/{h}/so-far/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("get", "/hands/{ch}/so-far/", {MEMBER: 403, ORGANISER: 403, PLAYER: 302}),
    ("get", "/hands/{h}/so-far.json", {MEMBER: 409, ORGANISER: 409, PLAYER: 409}),
    ("get", "/hands/{ch}/so-far.json", {MEMBER: 403, ORGANISER: 403, PLAYER: 409}),
    ("post", "/hands/{h}/open/", {MEMBER: 403, PLAYER: 403, ORGANISER: 302}),
    ("get", "/tables/{ct}/sit/", {MEMBER: 200}),
    # The clubhouse: results, seasons, the night's summary, how to play (every member; seasons by organisers).
    ("get", "/clubs/{club}/results/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/clubs/{club}/results/members/{u}/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("get", "/clubs/{club}/seasons/", {MEMBER: 200, ORGANISER: 200}),
    ("post", "/clubs/{club}/seasons/", {MEMBER: 403, PLAYER: 403, ORGANISER: 400}),
    ("get", "/clubs/{club}/seasons/{s}/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/seasons/{s}/close/", {MEMBER: 403, ORGANISER: 405}),
    ("get", "/clubs/{club}/since/seen/", {MEMBER: 405}),
    ("post", "/clubs/{club}/seasons/{s}/close/", {MEMBER: 403, PLAYER: 403, ORGANISER: 302}),
    ("get", "/clubs/{club}/since/", {MEMBER: 200, ORGANISER: 200, PLAYER: 200}),
    ("post", "/clubs/{club}/since/seen/", {MEMBER: 302, ORGANISER: 302, PLAYER: 302}),
    ("get", "/clubs/{club}/how-to-play/piranha/", {MEMBER: 200, ORGANISER: 200}),
    ("get", "/clubs/{club}/how-to-play/piles/", {MEMBER: 200, ORGANISER: 200}),
    # The club's data: organisers only. A hand is being played, so the export waits (409, with the page);
    # the club is not empty, so an import is refused (400, with the page).
    ("get", "/clubs/{club}/data/", {MEMBER: 403, PLAYER: 403, ORGANISER: 200}),
    ("post", "/clubs/{club}/data/export.zip", {MEMBER: 403, PLAYER: 403, ORGANISER: 409}),
    ("post", "/clubs/{club}/data/import/", {MEMBER: 403, PLAYER: 403, ORGANISER: 400}),
]


@pytest.mark.parametrize(("method", "url", "expected"), MATRIX, ids=[f"{m} {u}" for m, u, _ in MATRIX])
@pytest.mark.django_db
def test_permission_matrix(world, client_for, method, url, expected) -> None:
    users, ids = world
    path = url.format(**ids)
    for role, user in users.items():
        client = client_for(user)
        response = getattr(client, method)(path)
        if role == ANON:
            assert response.status_code == 302 and "/login/" in response["Location"], (role, path)
        elif role == OUTSIDER:
            assert response.status_code == 404, (role, path)  # the club's existence is not revealed
        elif role in expected:
            assert response.status_code == expected[role], (role, path, response.status_code)
        if response.status_code == 403 and ("{ct}" in url or "{ch}" in url):
            assert "keep spectators out" in response.content.decode(), path


def test_every_games_and_clubhouse_url_is_in_the_matrix() -> None:
    """A new URL of the games, notices, clubhouse or clubdata app must join MATRIX (or, outside a club, the list here)."""
    from django.urls import resolve

    from clubdata import urls as clubdata_urls
    from clubhouse import urls as clubhouse_urls
    from games import urls as games_urls
    from notices import urls as notices_urls

    ids = {"club": 1, "rs": 1, "v": 1, "t": 1, "h": 1, "ct": 1, "ch": 1, "m": 1, "s": 1, "u": 1}
    covered = {resolve(url.format(**ids)).view_name for _, url, _ in MATRIX}
    outside = {"games:deck_colours"}  # checked by test_the_deck_colour_switch_needs_a_login_and_post
    outside |= {"games:appearance"}  # checked by test_the_appearance_switch_takes_a_post_and_only_its_choices
    outside |= {"games:ruling_void"}  # the Rulings page's void form: tests/ledger/test_permissions.py
    # A member's own data and the JSON API: tests/clubdata/test_data_permissions.py lists each of them.
    outside |= {f"clubdata:{name}" for name in ("my_data", "my_data_download", "account_delete")}
    outside |= {
        f"games:{name}"
        for name in (
            "api_schema",
            "api_clubs",
            "api_balances",
            "api_statement",
            "api_tables",
            "api_table_hands",
            "api_hand",
        )
    }
    # A member's own notices and the web app files: tests/notices/test_notify_pages.py checks each of them.
    outside |= {"games:next_turn"}
    outside |= {
        f"notices:{name}"
        for name in ("notifications", "push_subscribe", "push_unsubscribe", "manifest", "service_worker")
    }
    outside |= {"games:my_tables", "games:my_tables_block"}  # a member's own tables: tests/games/test_my_tables.py
    names = (
        {f"games:{p.name}" for p in games_urls.urlpatterns}
        | {f"clubhouse:{p.name}" for p in clubhouse_urls.urlpatterns}
        | {f"clubdata:{p.name}" for p in clubdata_urls.urlpatterns}
        | {f"notices:{p.name}" for p in notices_urls.urlpatterns}
    )
    assert names - outside == covered


@pytest.mark.django_db
def test_a_member_of_another_club_has_no_results_page_here(club_setup, client_for) -> None:
    client = client_for(club_setup.members[0])
    response = client.get(f"/clubs/{club_setup.club.pk}/results/members/{club_setup.outsider.pk}/")
    assert response.status_code == 404
    assert client.get(f"/clubs/{club_setup.club.pk}/how-to-play/poker/").status_code == 404
    assert client.get(f"/clubs/{club_setup.club.pk}/results/?season=999999").status_code == 404
    assert client.get(f"/clubs/{club_setup.club.pk}/seasons/999999/").status_code == 404


@pytest.mark.django_db
def test_forged_ids_are_not_found(club_setup, client_for) -> None:
    client = client_for(club_setup.members[0])
    for path in (
        "/tables/999999/",
        "/tables/999999/sit/",
        "/hands/999999/",
        "/tables/999999/hands/",
        "/hands/999999/replay/",
        "/hands/999999/replay.json",
        f"/clubs/{club_setup.club.pk}/rules/999999/",
        f"/clubs/{club_setup.club.pk}/rules/versions/999999/",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post("/tables/999999/start/").status_code == 404


@pytest.mark.django_db
def test_a_rule_version_of_another_club_is_not_found(club_setup, client_for) -> None:
    other_club = club_setup.outsider.clubs.get()
    other = make_rule_set(other_club, club_setup.outsider)
    client = client_for(club_setup.members[0])
    assert client.get(f"/clubs/{club_setup.club.pk}/rules/versions/{other.versions.get().pk}/").status_code == 404
    assert client.get(f"/clubs/{club_setup.club.pk}/rules/{other.pk}/").status_code == 404


@pytest.mark.django_db
def test_spectators_see_only_the_public_view(club_setup, client_for) -> None:
    from tests.games.helpers import card_labels_in, hidden_cards_in, labels

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    state = engine.state_from_json(hand.state)
    html = client_for(club_setup.members[2]).get(f"/tables/{table.pk}/").content.decode()
    seen = card_labels_in(html)
    assert set(labels(state.board[:3])) <= seen
    assert not set(labels([c for h in state.hole for c in h])) & seen
    assert not set(labels(state.board[3:])) & seen
    assert hidden_cards_in(html, [c for h in state.hole for c in h] + list(state.board[3:])) == set()
    assert 'name="action"' not in html and not any(salt in html for salt in hand.salts)
    assert " ".join(hand.deck) not in html


@pytest.mark.django_db
def test_the_deck_colour_switch_needs_a_login_and_post(client_for, club_setup) -> None:
    response = client_for(None).post("/cards/colours/", {"colours": "four"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    client = client_for(club_setup.members[0])
    assert client.get("/cards/colours/").status_code == 405
    response = client.post("/cards/colours/", {"colours": "four", "next": "https://evil.example/"})
    assert response["Location"] == "/" and response.cookies["deck_colours"].value == "four"


@pytest.mark.django_db
def test_the_appearance_switch_takes_a_post_and_only_its_choices(client_for, club_setup) -> None:
    """Anyone may choose light or dark (a cookie of the browser); the page writes only 'light' or 'dark'."""
    client = client_for(None)
    assert client.get("/appearance/").status_code == 405
    response = client.post("/appearance/", {"theme": "dark", "next": "https://evil.example/"})
    assert response["Location"] == "/" and response.cookies["theme"].value == "dark"
    response = client.post("/appearance/", {"theme": '"><script>', "next": "/login/"})
    assert response["Location"] == "/login/" and response.cookies["theme"].value == "system"
    member = client_for(club_setup.members[0])
    member.cookies["theme"] = '" onload="x'
    page = member.get("/").content.decode()
    assert '<html lang="en">' in page and "onload" not in page
    member.cookies["theme"] = "light"
    assert '<html lang="en" data-theme="light">' in member.get("/").content.decode()


def test_the_page_leak_check_reads_the_raw_html_not_only_aria_labels() -> None:
    from tests.games.helpers import hidden_cards_in

    assert hidden_cards_in('<div data-cards="As Td"></div>', ["As", "Td", "9h"]) == {"As", "Td"}
    assert hidden_cards_in('<script>{"my_cards": ["Kc", "2d"]}</script>', ["Kc", "3d"]) == {"Kc"}
    assert hidden_cards_in('<span class="card suit-h">9♥</span> and 10♦ in words', ["9h", "Td"]) == {"9h", "Td"}
    assert hidden_cards_in('<input type="hidden" name="c" value="2c">', ["2c", "3c"]) == {"2c"}
    # Whole tokens only: words of a sentence and parts of longer tokens are not cards.
    assert (
        hidden_cards_in('<p>As agreed, Ad hoc.</p><a href="/tables/As1/" class="Tdx">x</a>', ["As", "Ad", "Td"])
        == set()
    )
    # The last hand's showdown (public once it is over) is left out.
    assert hidden_cards_in('<section class="previous"><b data-c="As">A♠</b></section>', ["As"]) == set()
