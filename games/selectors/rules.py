"""Reads of a club's house rules: the agreements and their numbered versions."""

from __future__ import annotations

from django.db.models import Max, OuterRef, QuerySet, Subquery

from accounts.models import Club
from games.models import RuleSet, RuleSetVersion


def rule_sets_for(*, club: Club) -> QuerySet[RuleSet]:
    return RuleSet.objects.filter(club=club).annotate(latest_number=Max("versions__number")).order_by("name", "pk")


def rule_set_get(*, club: Club, rule_set_id: int) -> RuleSet | None:
    return RuleSet.objects.filter(club=club, pk=rule_set_id).first()


def rule_set_versions(*, rule_set: RuleSet) -> QuerySet[RuleSetVersion]:
    return rule_set.versions.select_related("created_by").order_by("-number")


def rule_version_newest(*, rule_set: RuleSet) -> RuleSetVersion | None:
    """The agreement's newest version (what an edit starts from), or None."""
    return rule_set_versions(rule_set=rule_set).first()


def rule_version_get(*, club: Club, version_id: int) -> RuleSetVersion | None:
    return (
        RuleSetVersion.objects.select_related("rule_set", "created_by")
        .filter(pk=version_id, rule_set__club=club)
        .first()
    )


def rule_versions_latest(*, club_id: int, game: str | None = None) -> QuerySet[RuleSetVersion]:
    """The newest version of each of the club's agreements (what a new table can be opened under); of
    one game's agreements when ``game`` is given."""
    newest = RuleSetVersion.objects.filter(rule_set=OuterRef("rule_set")).order_by("-number").values("pk")[:1]
    rows = RuleSetVersion.objects.filter(rule_set__club_id=club_id, pk=Subquery(newest))
    if game is not None:
        rows = rows.filter(rule_set__game=game)
    return rows.select_related("rule_set").order_by("rule_set__name", "rule_set__pk")
