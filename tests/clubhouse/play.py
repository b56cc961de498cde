"""Playing hands through the real services with random legal actions, and counting their results by brute force."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import engine
from accounts.models import Club, User
from games import services
from games.models import Hand, Table
from ledger.models import Posting, Ruling
from tests.games.helpers import make_table


def play_table(
    *, club: Club, organiser: User, players: Sequence[User], rules: engine.Rules, rng: random.Random, hands: int
) -> Table:
    """Open a table, seat ``players``, and play up to ``hands`` hands with random legal actions
    (Piranha ends sooner when one player alone stays in)."""
    table = make_table(club, organiser, rules, players=players, max_seats=max(7, len(players)))
    users = {u.pk: u for u in players}
    services.table_start(table_id=table.pk, user=players[0])
    for _ in range(hands * 60):
        hand = Hand.objects.filter(table=table, finished_at__isnull=True).first()
        if hand is None or table.hands.filter(finished_at__isnull=False).count() >= hands:
            break
        state = engine.state_from_json(hand.state)
        seat = rng.choice(list(engine.to_act(state)))
        actions = engine.legal_actions(state, seat)
        # mostly stay in, so showdowns happen
        action = rng.choices(actions, weights=[0.3 if a.type in ("fold", "out") else 1.0 for a in actions])[0]
        services.hand_act(
            hand_id=hand.pk,
            user=users[hand.players[str(seat)]],
            action=engine.action_to_dict(action),
            version=hand.version,
        )
    return table


@dataclass
class Counted:
    hands: int = 0
    wins: int = 0
    net: int = 0
    biggest: int = 0
    decisions: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    decisions_won: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    results: list[bool] = field(default_factory=list)  # won or not, in dealing order

    @property
    def streak(self) -> int:
        last = self.results[-1]
        n = 0
        for r in reversed(self.results):
            if r != last:
                break
            n += 1
        return n if last else -n


def brute_force(
    *, club: Club, since: datetime | None = None, until: datetime | None = None
) -> dict[tuple[int, str], Counted]:
    """Each (member, game)'s results counted hand by hand in Python from the action log and the postings."""
    voided = set(Ruling.objects.filter(club=club, kind=Ruling.Kind.VOID_HAND).values_list("hand_id", flat=True))
    out: dict[tuple[int, str], Counted] = defaultdict(Counted)
    hands = (
        Hand.objects.filter(table__club=club, finished_at__isnull=False)
        .select_related("rule_version__rule_set")
        .order_by("pk")
    )
    for hand in hands:
        if hand.pk in voided or (since and hand.finished_at < since) or (until and hand.finished_at >= until):
            continue
        decisions: dict[int, str] = {}
        for action in hand.actions.all():
            for event in action.events:
                if event["kind"] in ("drop_open", "declare_open"):
                    decisions.update({d["seat"]: d["decision"] for d in event["decisions"]})
        for seat, user_id in hand.players.items():
            won = net = 0
            for p in Posting.objects.filter(
                entry__hand=hand, account__user_id=user_id, entry__reverses__isnull=True
            ).select_related("entry"):
                net += p.amount
                if p.entry.kind == "award":
                    won += p.amount
            c = out[(user_id, hand.rule_version.rule_set.game)]
            c.hands += 1
            c.wins += won > 0
            c.net += net
            c.biggest = max(c.biggest, won)
            decision = decisions.get(int(seat), "")
            c.decisions[decision] += 1
            c.decisions_won[decision] += won > 0
            c.results.append(won > 0)
    return out
