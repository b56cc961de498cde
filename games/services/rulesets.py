"""Writes of house-rule agreements (docs/design.md "Rule sets are agreements").

A version used by any table is frozen (``frozen_at``); an edit of a frozen
version makes the next version, an edit of an unused one changes it in place.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

import engine
from accounts.models import Club, User
from games.errors import RulesFrozen
from games.models import Game, RuleSet, RuleSetVersion
from kernel.text import text_problem

MAX_PLAYERS = {Game.PIRANHA: 11, Game.PILES: 7}


def _check(*, game: str, rules: engine.Rules, max_seats: int, name: str) -> None:
    problem = text_problem(name, what="A name of house rules")
    if problem:
        raise RulesFrozen(problem)
    if rules.game != game:
        raise RulesFrozen("These rules are for another game.")
    errors = rules.validate()
    if errors:
        raise RulesFrozen("; ".join(errors) + ".")
    top = MAX_PLAYERS[Game(game)]
    if not 2 <= max_seats <= top:
        raise RulesFrozen(f"{Game(game).label} is for 2 to {top} players.")


def rule_set_create(
    *, club: Club, user: User, name: str, rules: engine.Rules, max_seats: int, spectators_allowed: bool
) -> RuleSet:
    """Create an agreement with its version 1. Raises RulesFrozen (a DomainError) for unsound rules or a
    name with control or format characters (kernel/text.py)."""
    _check(game=rules.game, rules=rules, max_seats=max_seats, name=name)
    with transaction.atomic():
        rule_set = RuleSet.objects.create(club=club, name=name.strip(), game=rules.game, created_by=user)
        RuleSetVersion.objects.create(
            rule_set=rule_set,
            number=1,
            rules=rules.to_dict(),
            max_seats=max_seats,
            spectators_allowed=spectators_allowed,
            created_by=user,
        )
    return rule_set


def rule_set_edit(
    *, rule_set_id: int, user: User, name: str, rules: engine.Rules, max_seats: int, spectators_allowed: bool
) -> RuleSetVersion:
    """Change an agreement: a new version when the latest is frozen, else the latest in place.

    Locks the rule set row, then its latest version, so an edit and a table
    creation (which freezes) cannot interleave.
    """
    with transaction.atomic():
        rule_set = RuleSet.objects.select_for_update().get(pk=rule_set_id)
        _check(game=rule_set.game, rules=rules, max_seats=max_seats, name=name)
        latest = RuleSetVersion.objects.select_for_update().filter(rule_set=rule_set).order_by("-number").first()
        rule_set.name = name.strip()
        rule_set.save(update_fields=["name"])
        if latest is not None and not latest.is_frozen:
            latest.rules = rules.to_dict()
            latest.max_seats = max_seats
            latest.spectators_allowed = spectators_allowed
            latest.created_by = user
            latest.created_at = timezone.now()
            latest.save()
            return latest
        number = 1 if latest is None else latest.number + 1
        return RuleSetVersion.objects.create(
            rule_set=rule_set,
            number=number,
            rules=rules.to_dict(),
            max_seats=max_seats,
            spectators_allowed=spectators_allowed,
            created_by=user,
        )


def rule_version_freeze(*, version: RuleSetVersion) -> None:
    """Mark a version as used. The caller holds the version row's lock (select_for_update)."""
    if version.frozen_at is None:
        version.frozen_at = timezone.now()
        version.save(update_fields=["frozen_at"])
