"""The browser side of turn notices: push addresses and keys refused before they are stored, the subscribe
endpoints' checks, the "next table where it's my turn" link, the manifest, the root-scoped service worker,
the icons and the VAPID key command."""

from __future__ import annotations

import json
import struct

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from py_vapid import Vapid

import engine
from accounts.models import User
from games import services
from kernel.errors import DomainError
from notices import webpush as push
from notices.models import PushChoice, PushSubscription
from tests.games.async_helpers import awaited, user_at
from tests.games.helpers import make_table
from tests.notices.push_receiver import Browser


def logged_in(user: User, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.org/x",  # not https
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://[::1]/x",  # loopback
        "https://10.1.2.3/x",
        "https://192.168.0.9/x",
        "https://169.254.169.254/latest/",
        "https://[fd00::1]/x",
        "https://0.0.0.0/x",
        "ftp://push.example.org/x",
        "https://user:pw@8.8.8.8/x",
        "https://8.8.8.8:99999/x",
        "https://8.8.8.8/" + "a" * 1000,
        "",
        "https://8.8.8.8/a b",
    ],
)
def test_push_addresses_refused_in_production(endpoint, settings) -> None:
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = False
    with pytest.raises(DomainError):
        push.push_endpoint_check(endpoint)


def test_a_public_https_address_is_taken_and_loopback_only_where_allowed(settings) -> None:
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = False
    assert push.push_endpoint_check("https://8.8.8.8/push/abc")
    with pytest.raises(DomainError):
        push.push_endpoint_check("http://127.0.0.1:8123/push/abc")
    settings.PUSH_ENDPOINT_ALLOW_LOOPBACK = True
    assert push.push_endpoint_check("http://127.0.0.1:8123/push/abc")
    with pytest.raises(DomainError):
        push.push_endpoint_check("http://10.0.0.1/push/abc")  # plain http only on loopback, even then


def test_browser_keys_are_checked() -> None:
    good = Browser().subscription("https://8.8.8.8/x")["keys"]
    push.push_keys_check(**good)
    for bad in [
        {**good, "auth": "c2hvcnQ"},
        {**good, "p256dh": good["p256dh"][:-4]},
        {**good, "p256dh": "BA" + "A" * 85},
        {**good, "p256dh": "%%%"},
    ]:
        with pytest.raises(DomainError):
            push.push_keys_check(**bad)


@pytest.mark.django_db
def test_subscribing_needs_a_login_a_post_and_csrf_and_keeps_what_the_browser_sent(club_setup) -> None:
    member, other = club_setup.members[0], club_setup.members[1]
    sub = Browser().subscription("http://127.0.0.1:9/push/one")
    body = json.dumps(sub)
    assert Client().post("/account/push/subscribe/", body, content_type="application/json").status_code == 302
    assert Client().post("/account/push/unsubscribe/", body, content_type="application/json").status_code == 302
    assert logged_in(member).get("/account/push/subscribe/").status_code == 405
    assert (
        logged_in(member, csrf=True).post("/account/push/subscribe/", body, content_type="application/json").status_code
        == 403
    )
    bad = logged_in(member).post("/account/push/subscribe/", "{not json", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"] == "That request was not valid JSON."
    big = logged_in(member).post(
        "/account/push/subscribe/", json.dumps({"endpoint": "x" * 5000}), content_type="application/json"
    )
    assert big.status_code == 400
    assert not PushSubscription.objects.exists()
    ok = logged_in(member).post("/account/push/subscribe/", body, content_type="application/json")
    assert ok.status_code == 201 and ok.json()["browsers"] == 1
    row = PushSubscription.objects.get()
    assert (row.user_id, row.endpoint, row.p256dh, row.auth) == (
        member.pk,
        sub["endpoint"],
        sub["keys"]["p256dh"],
        sub["keys"]["auth"],
    )
    # another member cannot remove it
    gone = logged_in(other).post(
        "/account/push/unsubscribe/", json.dumps({"endpoint": sub["endpoint"]}), content_type="application/json"
    )
    assert gone.json() == {"ok": True, "removed": False} and PushSubscription.objects.count() == 1
    mine = logged_in(member).post(
        "/account/push/unsubscribe/", json.dumps({"endpoint": sub["endpoint"]}), content_type="application/json"
    )
    assert mine.json() == {"ok": True, "removed": True} and not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_a_member_keeps_at_most_the_newest_subscriptions(club_setup, settings) -> None:
    settings.PUSH_SUBSCRIPTIONS_PER_MEMBER = 3
    member = club_setup.members[0]
    client = logged_in(member)
    for n in range(5):
        client.post(
            "/account/push/subscribe/",
            json.dumps(Browser().subscription(f"http://127.0.0.1:9/p/{n}")),
            content_type="application/json",
        )
    assert sorted(PushSubscription.objects.values_list("endpoint", flat=True)) == [
        f"http://127.0.0.1:9/p/{n}" for n in (2, 3, 4)
    ]


@pytest.mark.django_db
def test_the_notifications_page_saves_push_choices_and_carries_the_public_key(club_setup) -> None:
    member = club_setup.members[0]
    client = logged_in(member)
    page = client.get("/account/notifications/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-vapid-key="{push.vapid_public_key()}"' in html and "<script>" not in html
    assert client.post("/account/notifications/", {"reminder": "on", "digest": "on"}).status_code == 302
    choice = PushChoice.objects.get(user=member)
    assert (choice.turn, choice.reminder, choice.digest) == (False, True, True)
    assert Client().get("/account/notifications/").status_code == 302


@pytest.mark.django_db
def test_the_public_key_matches_the_private_one() -> None:
    private = push.vapid_private_key()
    assert private is not None
    public = push.b64url_decode(push.vapid_public_key() or "")
    assert len(public) == 65 and public[0] == 4
    assert push.vapid_public_key() == push.vapid_public_key()  # kept, not made anew


@pytest.mark.django_db
def test_next_turn_goes_to_each_waiting_table_in_turn_and_says_when_none(club_setup) -> None:
    a, b, c = club_setup.members
    tables = []
    for _ in range(2):
        table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
        hand = services.table_start(table_id=table.pk, user=a)
        tables.append((table, user_at(hand, awaited(hand)[0])))
    player = tables[0][1]
    mine = [t.pk for t, who in tables if who.pk == player.pk]
    client = logged_in(player)
    first = client.get("/turns/next/")
    assert first.status_code == 302 and first["Location"] == f"/tables/{mine[0]}/"
    after = client.get(f"/turns/next/?after={mine[-1]}")
    assert after["Location"] == f"/tables/{mine[0]}/"  # round again
    if len(mine) == 2:
        assert client.get(f"/turns/next/?after={mine[0]}")["Location"] == f"/tables/{mine[1]}/"
    assert client.get("/turns/next/?after=%D9%A3")["Location"] == f"/tables/{mine[0]}/"  # junk: the first
    none = logged_in(c).get("/turns/next/", follow=True)
    assert none.redirect_chain[0][0] == "/" and "No table is waiting for you" in none.content.decode()
    assert Client().get("/turns/next/").status_code == 302  # to the login page
    header = client.get(f"/tables/{mine[0]}/").content.decode()
    assert f'href="/turns/next/?after={mine[0]}"' in header


@pytest.mark.django_db
def test_a_removed_member_is_not_sent_to_the_old_clubs_tables(club_setup) -> None:
    from accounts.models import Membership

    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)
    player = user_at(hand, awaited(hand)[0])
    Membership.objects.filter(user=player, club=club_setup.club).delete()
    assert logged_in(player).get("/turns/next/")["Location"] == "/"


@pytest.mark.django_db
def test_manifest_service_worker_and_icons(client) -> None:
    manifest = client.get("/manifest.webmanifest")
    assert manifest.status_code == 200 and manifest["Content-Type"] == "application/manifest+json"
    data = json.loads(manifest.content)
    assert data["start_url"] == "/" and data["scope"] == "/" and data["display"] == "standalone"
    sizes = set()
    for icon in data["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200
        raw = b"".join(png.streaming_content) if png.streaming else png.content
        assert raw[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", raw[16:24])
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes and any(i["purpose"] == "maskable" for i in data["icons"])
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker["Content-Type"].startswith("text/javascript")
    assert worker["Service-Worker-Allowed"] == "/" and "no-cache" in worker["Cache-Control"]
    body = worker.content.decode()
    assert 'addEventListener("push"' in body and 'addEventListener("fetch"' in body
    page = client.get("/login/").content.decode()
    assert 'rel="manifest" href="/manifest.webmanifest"' in page and "js/notify.js" in page


def test_the_key_command_prints_a_usable_key_and_never_replaces_a_file(tmp_path, capsys) -> None:
    call_command("vapid_keys")
    out = capsys.readouterr().out
    private = out.split("VAPID_PRIVATE_KEY=")[1].split()[0]
    Vapid.from_string(private).sign({"sub": "mailto:a@example.org", "aud": "https://8.8.8.8", "exp": 2**31})
    target = tmp_path / "key"
    call_command("vapid_keys", write=str(target))
    assert len(push.b64url_decode(target.read_text().strip())) == 32 and (target.stat().st_mode & 0o777) == 0o600
    with pytest.raises(CommandError):
        call_command("vapid_keys", write=str(target))
