"""Twenty conflicting actions at once on one hand, over real parallel PostgreSQL connections: one wins."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from config.errors import DomainError
from games import engine, services
from games.models import HandAction
from ledger.models import JournalEntry
from tests.games.helpers import make_table


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_conflicting_actions_apply_exactly_one(club_setup) -> None:
    a, b, c = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PilesRules(), players=[a, b, c])
    hand = services.table_start(table_id=table.pk, user=a)
    actor = b  # the button is seat 1, so seat 2 acts first
    actions = [{"type": "check"}, {"type": "bet", "amount": 25}, {"type": "fold"}, {"type": "bet"}]
    barrier = threading.Barrier(20)
    applied: list[dict] = []
    refused: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def play(k: int) -> None:
        try:
            barrier.wait()
            action = actions[k % len(actions)]
            services.hand_apply_action(hand_id=hand.pk, user=actor, action=action, version=0)
            with lock:
                applied.append(action)
        except DomainError as exc:
            with lock:
                refused.append(str(exc))
        except BaseException as exc:  # noqa: BLE001 - reported below
            with lock:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(applied) == 1 and len(refused) == 19
    assert set(refused) == {"The table moved on; here is the current state."}
    hand.refresh_from_db()
    assert hand.version == 1
    assert HandAction.objects.filter(hand=hand).count() == 1
    bets = JournalEntry.objects.filter(hand=hand, kind="bet").count()
    assert bets == (1 if applied[0]["type"] == "bet" else 0)
