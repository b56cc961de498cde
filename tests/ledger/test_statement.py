"""Statement pages: newest first, keyset pages with a running balance, filters, streamed CSV, chart."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Game
from ledger.models import Account, Posting
from ledger.selectors import StatementFilter, statement_page, statement_rows
from ledger.services import ledger_post_hand_events, ruling_adjust

from .helpers import make_hand, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy(club_setup):
    """Ann plays 70 hands: 40 at a Piranha table, 30 at a Piles table; one adjustment."""
    ann, ben, _ = club_setup.members
    tables = {g: make_table(club_setup.club, club_setup.organiser, g) for g in (Game.PIRANHA, Game.PILES)}
    for i in range(70):
        table = tables[Game.PIRANHA if i < 40 else Game.PILES]
        hand = make_hand(table, [ann, ben])
        ledger_post_hand_events(
            hand=hand,
            seat_users={0: ann, 1: ben},
            created_by=None,
            events=[
                {"kind": "ante", "seat": 0, "amount": 25},
                {"kind": "ante", "seat": 1, "amount": 25},
                {"kind": "award", "seat": i % 2, "amount": 50},
            ],
        )
    ruling_adjust(
        club=club_setup.club,
        from_user=ben,
        to_user=ann,
        amount=99,
        reason="Rob is right",
        ruled_by=club_setup.organiser,
    )
    return club_setup, tables


def test_pages_walk_the_whole_statement_by_keyset_newest_first(busy):
    setup, _ = busy
    account = Account.objects.get(club=setup.club, user=setup.members[0])
    seen: list[Posting] = []
    before = None
    while True:
        with CaptureQueriesContext(connection) as queries:
            page = statement_page(account=account, flt=StatementFilter(), before=before, size=25)
        assert not any("OFFSET" in q["sql"] for q in queries.captured_queries)
        seen.extend(page.lines)
        if page.next_before is None:
            break
        before = page.next_before
    assert [p.seq for p in seen] == list(range(account.last_seq, 0, -1))
    # Reading oldest to newest, each line's running balance is the previous plus its amount.
    running = 0
    for posting in reversed(seen):
        running += posting.amount
        assert posting.balance_after == running
    assert running == account.balance


def test_filters_by_game_table_kind_and_date(busy):
    setup, tables = busy
    account = Account.objects.get(club=setup.club, user=setup.members[0])
    piles = statement_page(account=account, flt=StatementFilter(game="piles"), size=500).lines
    assert len(piles) == 30 * 1.5 and {p.game for p in piles} == {"piles"}
    table = statement_page(account=account, flt=StatementFilter(table_id=tables[Game.PIRANHA].pk), size=500).lines
    assert len(table) == 60
    adjust = statement_page(account=account, flt=StatementFilter(kind="adjustment"), size=500).lines
    assert [p.amount for p in adjust] == [99]


def test_the_page_shows_the_statement_and_an_older_link(busy, client_for):
    setup, _ = busy
    ann = setup.members[0]
    url = reverse("ledger:statement", args=[setup.club.pk, ann.pk])
    response = client_for(ann).get(url, {"game": "piranha"})
    body = response.content.decode()
    assert response.status_code == 200 and "Older" in body and "before=" in body
    assert "Rob is right" not in body  # the adjustment has no game: filtered out
    response = client_for(ann).get(url, {"kind": "adjustment"})
    assert "Rob is right" in response.content.decode()


@pytest.mark.parametrize(
    "params, message",
    [
        ({"table": "999999"}, "Choose a table of this club"),
        ({"date_from": "2026-02-01", "date_to": "2026-01-01"}, "start date is after the end date"),
        ({"date_from": "yesterday"}, "Enter a valid date"),
        ({"kind": "bribe"}, "Select a valid choice"),
        ({"before": "x"}, "page link is broken"),
    ],
)
def test_bad_filters_get_a_clear_message_not_a_500(busy, client_for, params, message):
    setup, _ = busy
    ann = setup.members[0]
    response = client_for(ann).get(reverse("ledger:statement", args=[setup.club.pk, ann.pk]), params)
    assert response.status_code == 400 and message in response.content.decode()
    export = client_for(ann).get(reverse("ledger:statement_export", args=[setup.club.pk, ann.pk]), params)
    assert export.status_code == 400


def test_the_csv_export_is_streamed_and_matches_the_filtered_view(busy, client_for):
    setup, _ = busy
    ann = setup.members[0]
    response = client_for(ann).get(reverse("ledger:statement_export", args=[setup.club.pk, ann.pk]), {"game": "piles"})
    assert response.status_code == 200 and response.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 45 and {r["game"] for r in rows} == {"piles"}
    newest = Posting.objects.filter(account__user=ann, game="piles").order_by("-seq").first()
    assert rows[0]["balance_after"] == f"{newest.balance_after / 100:.2f}"
    assert rows[0]["entry"] == str(newest.entry_id)


def test_export_rows_come_in_keyset_chunks(busy):
    setup, _ = busy
    account = Account.objects.get(club=setup.club, user=setup.members[0])
    with CaptureQueriesContext(connection) as queries:
        rows = list(statement_rows(account=account, flt=StatementFilter(), chunk=20))
    assert len(rows) == account.last_seq and len(queries.captured_queries) == account.last_seq // 20 + 1


def test_a_member_text_cannot_become_a_spreadsheet_formula(club_setup, client_for):
    ann, ben, _ = club_setup.members
    ruling_adjust(
        club=club_setup.club,
        from_user=ben,
        to_user=ann,
        amount=1,
        reason='=HYPERLINK("x")',
        ruled_by=club_setup.organiser,
    )
    response = client_for(ann).get(reverse("ledger:statement_export", args=[club_setup.club.pk, ann.pk]))
    memo = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))[0]["memo"]
    assert not memo.startswith("=")


def test_chart_has_data_for_the_script_and_a_table_without_it(busy, client_for):
    setup, _ = busy
    response = client_for(setup.members[0]).get(reverse("ledger:chart", args=[setup.club.pk]), {"days": "all"})
    body = response.content.decode()
    assert 'id="ledger-chart-data"' in body and "chart.umd.min.js" in body
    data = _chart_data(body)
    assert data["history"]["values"][-1] == Account.objects.get(club=setup.club, user=setup.members[0]).balance / 100


def _chart_data(body):
    start = body.index('id="ledger-chart-data" type="application/json">') + len(
        'id="ledger-chart-data" type="application/json">'
    )
    return json.loads(body[start : body.index("</script>", start)])


def test_a_chart_of_entries_all_on_one_day_has_a_point_per_entry(busy, client_for):
    """One point a day would be a line chart of one point, which draws nothing."""
    setup, _ = busy
    account = Account.objects.get(club=setup.club, user=setup.members[0])
    body = (
        client_for(setup.members[0])
        .get(reverse("ledger:chart", args=[setup.club.pk]), {"days": "all"})
        .content.decode()
    )
    history = _chart_data(body)["history"]
    assert len(history["values"]) == account.last_seq  # every entry, at its time
    assert all(label.startswith(timezone.localdate().isoformat()) for label in history["labels"])
    assert len(set(history["labels"])) == len(history["labels"])  # no time label twice on the axis
    running = [p.balance_after / 100 for p in Posting.objects.filter(account=account).order_by("seq")]
    assert history["values"] == running
    assert "Balance after each entry (table)" in body


def test_a_chart_over_many_days_has_a_point_a_day(club_setup, client_for):
    ann, ben, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser)
    start = timezone.now() - dt.timedelta(days=5)
    for day in range(4):
        with mock.patch("django.utils.timezone.now", return_value=start + dt.timedelta(days=day)):
            for _ in range(2):
                hand = make_hand(table, [ann, ben])
                ledger_post_hand_events(
                    hand=hand,
                    seat_users={0: ann, 1: ben},
                    created_by=None,
                    events=[{"kind": "ante", "seat": 0, "amount": 25}],
                )
    body = client_for(ann).get(reverse("ledger:chart", args=[club_setup.club.pk]), {"days": "30"}).content.decode()
    history = _chart_data(body)["history"]
    assert history["values"] == [-0.5, -1.0, -1.5, -2.0]
    assert "Balance by day (table)" in body


def test_entry_labels_tell_apart_entries_that_share_a_minute_or_a_second():
    from ledger.views import entry_labels

    at = dt.datetime(2026, 1, 31, 20, 15, 7, tzinfo=dt.UTC)
    moments = [at - dt.timedelta(minutes=3), at, at, at + dt.timedelta(seconds=20)]
    with timezone.override("UTC"):
        assert entry_labels(moments) == [
            "2026-01-31 20:12",
            "2026-01-31 20:15:07 (1 of 2)",
            "2026-01-31 20:15:07 (2 of 2)",
            "2026-01-31 20:15:27",
        ]
