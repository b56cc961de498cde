"""The table chat: live to every socket at the table, escaped on the page, length- and rate-limited
per member (Redis), organisers hide lines for everyone, spectators read only; a plain form post
works without JavaScript."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.core.cache import cache

import engine
from games.models import ChatMessage
from games.services.chat import MAX_CHARS, RATE_COUNT, ChatRefused, chat_hide, chat_post
from tests.games.helpers import make_table
from tests.games.test_consumers import close_worker_thread_connections, communicator, next_of, open_table  # noqa: F401


@pytest.fixture(autouse=True)
def fresh_rate_limits(club_setup) -> None:
    """Rate counts live in Redis, which outlives the test database: start these members at zero."""
    cache.delete_many([f"chat-rate:{u.pk}" for u in [*club_setup.everyone, club_setup.outsider]])


@pytest.mark.django_db(transaction=True)
async def test_chat_is_live_to_players_and_spectators_and_hidden_live_by_an_organiser(club_setup) -> None:
    a, b, c = club_setup.members
    table = await database_sync_to_async(make_table)(
        club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b]
    )
    sa, sb = await open_table(table.pk, a), await open_table(table.pk, b)
    watcher = await open_table(table.pk, c)  # a member not seated: a spectator
    organiser = await open_table(table.pk, club_setup.organiser)

    await sa.send_json_to({"type": "chat", "text": "  <script>alert(1)</script> hi  "})
    ok = await next_of(sa, "chat.ok")
    for comm in (sa, sb, watcher, organiser):
        line = (await next_of(comm, "chat.message"))["message"]
        assert line["id"] == ok["id"] and line["text"] == "<script>alert(1)</script> hi"
        assert line["author"] == a.shown_name

    await watcher.send_json_to({"type": "chat", "text": "can I?"})
    assert "Spectators can read" in (await next_of(watcher, "error"))["message"]

    await sb.send_json_to({"type": "chat.hide", "id": ok["id"]})
    assert "organisers" in (await next_of(sb, "error"))["message"]
    await organiser.send_json_to({"type": "chat.hide", "id": ok["id"]})
    for comm in (sa, sb, watcher, organiser):
        assert (await next_of(comm, "chat.hidden"))["id"] == ok["id"]

    # A socket opened now gets the history without the hidden line.
    late = await communicator(f"/ws/tables/{table.pk}/", b)
    assert (await late.connect(timeout=5))[0]
    assert (await next_of(late, "chat.history"))["messages"] == []
    assert (
        await database_sync_to_async(lambda: ChatMessage.objects.get(pk=ok["id"]).hidden_by_id)()
        == club_setup.organiser.pk
    )
    for comm in (sa, sb, watcher, organiser, late):
        await comm.disconnect()


@pytest.mark.django_db
def test_length_and_rate_limits_refuse_and_store_nothing(club_setup) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    with pytest.raises(ChatRefused, match="at most 500"):
        chat_post(table_id=table.pk, user=a, text="x" * (MAX_CHARS + 1))
    with pytest.raises(ChatRefused, match="Write something"):
        chat_post(table_id=table.pk, user=a, text="   ")
    chat_post(table_id=table.pk, user=a, text="x" * MAX_CHARS)
    for n in range(RATE_COUNT - 1):
        chat_post(table_id=table.pk, user=a, text=f"line {n}")
    with pytest.raises(ChatRefused, match="Slow down"):
        chat_post(table_id=table.pk, user=a, text="one too many")
    chat_post(table_id=table.pk, user=b, text="B has a limit of their own")
    assert ChatMessage.objects.filter(user=a).count() == RATE_COUNT
    with pytest.raises(ChatRefused, match="members"):
        chat_post(table_id=table.pk, user=club_setup.outsider, text="hello")


@pytest.mark.django_db
def test_the_page_shows_chat_escaped_and_takes_a_plain_form_post(club_setup, client_for) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    response = client_for(a).post(f"/tables/{table.pk}/chat/", {"text": "<img src=x onerror=alert(1)>"}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src=x" not in html
    spectator_page = client_for(c).get(f"/tables/{table.pk}/").content.decode()
    assert "&lt;img src=x" in spectator_page and 'id="chat-form"' not in spectator_page
    refused = client_for(c).post(f"/tables/{table.pk}/chat/", {"text": "me too"}, follow=True).content.decode()
    assert "take a seat to write" in refused
    line = ChatMessage.objects.get()
    organiser_page = client_for(club_setup.organiser).get(f"/tables/{table.pk}/").content.decode()
    assert f"/chat/{line.pk}/hide/" in organiser_page
    assert client_for(b).post(f"/chat/{line.pk}/hide/").status_code == 302
    line.refresh_from_db()
    assert line.hidden_at is None  # a member cannot hide
    client_for(club_setup.organiser).post(f"/chat/{line.pk}/hide/")
    line.refresh_from_db()
    assert line.hidden_at is not None
    assert "onerror" not in client_for(a).get(f"/tables/{table.pk}/").content.decode()
    assert client_for(club_setup.outsider).post(f"/chat/{line.pk}/hide/").status_code == 404
    assert client_for(None).post(f"/tables/{table.pk}/chat/", {"text": "x"}).status_code == 302  # to log in
    chat_hide(message_id=line.pk, user=club_setup.organiser)  # twice: no change, no error
