"""Web Push end to end: a member subscribes through the notifications endpoint, the notice tasks push
through pywebpush to a push service on loopback (tests/notices/push_receiver.py) that checks the VAPID
token and decrypts the aes128gcm payload with the browser's key; subscriptions the service reports
gone (404, 410) are removed; nothing is pushed while the member is present; real Celery workers send it (the notice on the clocks' queue, the push on the push queue)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from accounts.models import User
from games.models import Hand
from notices import webpush as push
from notices.models import PushChoice, PushSubscription
from notices.tasks import send_daily_digests, sweep_due_notices
from tests.games.async_helpers import piles_turn
from tests.games.celery_worker import run_queued_pushes, start_push_worker, start_worker
from tests.games.helpers import turn_notice, turn_reminder
from tests.games.test_consumers import close_worker_thread_connections, open_table
from tests.notices.push_receiver import Browser, PushReceiver

__all__ = ["close_worker_thread_connections"]


@pytest.fixture
def receiver() -> Iterator[PushReceiver]:
    with PushReceiver() as server:
        yield server


@pytest.fixture
def turn(club_setup, settings) -> tuple[Hand, User, int]:
    settings.SITE_URL = "https://club.example.org"
    settings.TURN_DIGEST_HOUR = 0
    return piles_turn(club_setup)


def logged_in(user: User) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def subscribe(user: User, browser: Browser, endpoint: str) -> None:
    response = logged_in(user).post(
        "/account/push/subscribe/", json.dumps(browser.subscription(endpoint)), content_type="application/json"
    )
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_a_turn_push_arrives_signed_encrypted_and_says_no_more_than_the_table(
    turn, receiver, mailoutbox, settings
) -> None:
    hand, player, seat = turn
    browser = Browser()
    subscribe(player, browser, receiver.endpoint())
    assert turn_notice(hand.pk, seat, 0) is True
    run_queued_pushes()
    (got,) = receiver.wait_for(1)
    assert got.vapid_key == push.vapid_public_key()
    assert got.claims["sub"] == settings.VAPID_SUBJECT
    payload = json.loads(browser.decrypt(got.body))
    hand.refresh_from_db()
    url = f"https://club.example.org/tables/{hand.table_id}/"
    assert payload == {
        "title": f"Your turn at {hand.table.name}",
        "body": f"{hand.table.club.name}: the table waits for you.",
        "url": url,
        "tag": f"table-{hand.table_id}",
    }
    assert len(mailoutbox) == 1  # email too: the member's email choice stands beside push
    assert turn_notice(hand.pk, seat, 0) is False  # once per turn
    assert len(receiver.received) == 1


@pytest.mark.django_db
def test_a_browser_other_than_the_subscribed_one_cannot_read_it(turn, receiver) -> None:
    hand, player, seat = turn
    subscribe(player, Browser(), receiver.endpoint())
    assert turn_notice(hand.pk, seat, 0) is True
    run_queued_pushes()
    (got,) = receiver.wait_for(1)
    with pytest.raises(Exception):  # noqa: B017 - any failure: the tag does not verify under another key
        Browser().decrypt(got.body)


@pytest.mark.django_db
def test_push_only_and_push_off_as_chosen_per_kind(turn, receiver, mailoutbox) -> None:
    hand, player, seat = turn
    User.objects.filter(pk=player.pk).update(turn_notices=User.TurnNotices.OFF, turn_reminder=False)
    browser = Browser()
    subscribe(player, browser, receiver.endpoint())
    PushChoice.objects.filter(user=player).update(turn=False, reminder=True)
    assert turn_notice(hand.pk, seat, 0) is False  # neither email nor push chosen for "your turn"
    assert turn_reminder(hand.pk, seat, 0) is True  # push chosen for the reminder
    run_queued_pushes()
    (got,) = receiver.wait_for(1)
    payload = json.loads(browser.decrypt(got.body))
    assert payload["title"] == f"Your clock at {hand.table.name} runs out soon"
    assert mailoutbox == []


@pytest.mark.django_db
def test_the_digest_by_push(turn, receiver, mailoutbox) -> None:
    hand, player, _seat = turn
    User.objects.filter(pk=player.pk).update(turn_notices=User.TurnNotices.OFF)
    browser = Browser()
    subscribe(player, browser, receiver.endpoint())
    PushChoice.objects.filter(user=player).update(digest=True)
    assert send_daily_digests() == 1
    assert send_daily_digests() == 0
    run_queued_pushes()
    (got,) = receiver.wait_for(1)
    payload = json.loads(browser.decrypt(got.body))
    assert payload["title"] == "1 table waiting for you" and payload["body"] == hand.table.name
    assert mailoutbox == []


@pytest.mark.django_db
def test_subscriptions_the_push_service_reports_gone_are_removed(turn, receiver) -> None:
    hand, player, seat = turn
    endpoints = {kind: receiver.endpoint(kind) for kind in ("push", "gone", "missing", "broken", "moved")}
    for endpoint in endpoints.values():
        subscribe(player, Browser(), endpoint)
    assert turn_notice(hand.pk, seat, 0) is True
    run_queued_pushes()
    receiver.wait_for(1)
    left = set(PushSubscription.objects.filter(user=player).values_list("endpoint", flat=True))
    # 410 and 404 gone; a 500 or a redirect is kept for next time (a redirect is never followed)
    assert left == {endpoints["push"], endpoints["broken"], endpoints["moved"]}
    assert sorted(p.split("/")[1] for p in receiver.refused) == ["broken", "gone", "missing", "moved"]
    assert len(receiver.received) == 1


@pytest.mark.django_db(transaction=True)
async def test_no_push_while_the_table_is_open_and_the_sweep_pushes_once_it_closed(turn, receiver, settings) -> None:
    settings.TURN_NOTICE_GRACE_SECONDS = 0
    hand, player, seat = turn
    browser = Browser()
    await database_sync_to_async(subscribe)(player, browser, receiver.endpoint())
    await database_sync_to_async(User.objects.filter(pk=player.pk).update)(
        turn_notices=User.TurnNotices.OFF, turn_reminder=False
    )
    comm = await open_table(hand.table_id, player)
    assert await database_sync_to_async(turn_notice)(hand.pk, seat, 0) is False
    assert await database_sync_to_async(sweep_due_notices)() == 0
    assert receiver.received == []
    await comm.disconnect()
    assert await database_sync_to_async(sweep_due_notices)() == 1
    await database_sync_to_async(run_queued_pushes)()
    (got,) = await database_sync_to_async(receiver.wait_for)(1)
    assert json.loads(browser.decrypt(got.body))["title"].startswith("Your turn at")


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_pushes_the_turn(turn, receiver, procs, tmp_path: Path) -> None:
    hand, player, seat = turn
    browser = Browser()
    subscribe(player, browser, receiver.endpoint())
    procs.append(start_worker(tmp_path, TURN_NOTICE_GRACE_SECONDS="0"))
    procs.append(start_push_worker(tmp_path))
    sweep_due_notices.delay()  # the beat's backstop: the turn is due at once with no grace
    (got,) = receiver.wait_for(1, timeout=30)
    assert json.loads(browser.decrypt(got.body))["url"].endswith(f"/tables/{hand.table_id}/")
