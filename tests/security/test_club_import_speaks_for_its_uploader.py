"""An organiser's club import enrolled other people and forged records in their names.

Any member can make a club (becoming its organiser) and upload a crafted export into it. The import matched
the file's members to the site's accounts by username and email and gave them the file's role; every record
of the file was then theirs. Ann was made organiser of Dan's club with a balance, rulings, a settlement and
chat in her name, from a file that needed only her username and email. Now an upload speaks only for its
uploader: the others named in the file become named placeholders (no account of anyone's), the file's
members are invited at their own address, and no existing account is enrolled or named by the file. The
operator's restore (``manage.py club_import``) still matches accounts: the operator speaks for the site."""

from __future__ import annotations

from collections import Counter

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import models

from accounts.models import Invitation, Membership, User
from games.models import ChatMessage, Hand
from ledger.models import Account, Posting, Ruling, Settlement
from ledger.verify import ledger_problems
from tests.accounts.factories import PASSWORD, ClubFactory, MembershipFactory, UserFactory
from tests.clubdata.import_jobs import run_queued_imports
from tests.clubdata.test_club_archive import busy_club  # noqa: F401 - the fixture

from .club_files import export_of, log_in, rewritten, upload
from .site import running_site


def references(user: User) -> Counter[str]:
    """Every row of the site that names ``user`` (a foreign key, or a hand's players), by model and field."""
    found: Counter[str] = Counter()
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.ForeignKey) and field.related_model is User:
                n = model._default_manager.filter(**{field.attname: user.pk}).count()
                if n:
                    found[f"{model.__name__}.{field.name}"] = n
    found["Hand.players"] = sum(
        1 for players in Hand.objects.values_list("players", flat=True) if user.pk in players.values()
    )
    return +found


def _dans_club() -> tuple[User, int]:
    dan = UserFactory(username="dan", email="dan@example.com", display_name="Dan")
    club = ClubFactory(name="Dan's club")
    MembershipFactory(club=club, user=dan, role=Membership.Role.ORGANISER)
    return dan, club.pk


@pytest.mark.django_db(transaction=True)
def test_a_forged_archive_enrols_nobody_and_puts_nothing_in_anns_name(busy_club, tmp_path):  # noqa: F811
    """The attack as it was made, against the real site: Ann's username and email in a crafted file."""
    ann = UserFactory(username="ann", email="ann@example.com", display_name="Ann")
    dan, club_id = _dans_club()
    stand_in = busy_club.members[0]  # whose records in the genuine file become "Ann's"

    def as_ann(rows):
        for row in rows:
            if row["id"] == stand_in.pk:
                row.update(username="ann", email="ann@example.com", display_name="Ann", role="organiser")
        return rows

    forged = rewritten(export_of(busy_club.club), {"data/members.jsonl": as_ann})
    before = references(ann)
    with running_site(tmp_path) as site:
        status, location, page = upload(log_in(site.port, "dan", PASSWORD), club_id, forged)
    assert status == 302 and location.endswith(f"/clubs/{club_id}/data/"), (status, page[:2000])
    assert [job.state for job in run_queued_imports()] == ["done"]  # as the imports worker runs it

    assert not Membership.objects.filter(user=ann).exists()
    assert references(ann) == before == Counter()  # no seat, posting, ruling, settlement or chat line is hers
    assert list(Membership.objects.filter(club_id=club_id).values_list("user__username", "role")) == [
        ("dan", "organiser")
    ]
    # Her records in the file belong to a placeholder named for her, which is nobody's account.
    placeholder = User.objects.get(display_name="Ann (imported)")
    assert not placeholder.is_active and not placeholder.has_usable_password() and placeholder.email == ""
    assert Account.objects.filter(club_id=club_id, user=placeholder).exists()
    assert Posting.objects.filter(club_id=club_id, account__user=placeholder).exists()
    assert Ruling.objects.filter(club_id=club_id, from_user=placeholder).exists()
    assert ChatMessage.objects.filter(table__club_id=club_id, user=placeholder).exists()
    assert not Settlement.objects.filter(club_id=club_id, payer=ann).exists()
    # She is invited, at her own address, as Dan could have invited her: joining is hers to decide.
    invitation = Invitation.objects.get(club_id=club_id, email="ann@example.com")
    assert invitation.created_by == dan and invitation.used_at is None
    assert ledger_problems(club_id=club_id)[0] == []


@pytest.mark.django_db
def test_a_genuine_export_imported_into_another_organisers_club_enrols_nobody(busy_club, client_for):  # noqa: F811
    data = export_of(busy_club.club)
    people = [*busy_club.everyone, busy_club.outsider]
    before = {user.pk: references(user) for user in people}
    dan, club_id = _dans_club()
    response = client_for(dan).post(
        f"/clubs/{club_id}/data/import/", {"file": SimpleUploadedFile("club.zip", data, content_type="application/zip")}
    )
    assert response.status_code == 302
    assert [job.state for job in run_queued_imports()] == ["done"]  # as the imports worker runs it
    assert list(Membership.objects.filter(club_id=club_id).values_list("user", flat=True)) == [dan.pk]
    for user in people:
        assert references(user) == before[user.pk], user.username
    assert references(dan) == Counter(
        {"Membership.user": 1, "Invitation.created_by": len(busy_club.everyone), "ClubImport.uploaded_by": 1}
    )
    assert sorted(Invitation.objects.filter(club_id=club_id).values_list("email", flat=True)) == sorted(
        u.email for u in busy_club.everyone
    )
    assert (
        Hand.objects.filter(table__club_id=club_id).count() == Hand.objects.filter(table__club=busy_club.club).count()
    )
    assert ledger_problems(club_id=club_id)[0] == []


@pytest.mark.django_db
def test_the_uploader_claims_only_their_own_line(busy_club, client_for):  # noqa: F811
    """The organiser who made the export, importing it into a new club of theirs, keeps their own records."""
    data = export_of(busy_club.club)
    organiser = busy_club.organiser
    new_club = ClubFactory(name="New home")
    MembershipFactory(club=new_club, user=organiser, role=Membership.Role.ORGANISER)
    response = client_for(organiser).post(
        f"/clubs/{new_club.pk}/data/import/",
        {"file": SimpleUploadedFile("club.zip", data, content_type="application/zip")},
        follow=True,
    )
    assert response.status_code == 200 and "Waiting for its turn" in response.content.decode()
    run_queued_imports()
    response = client_for(organiser).get(f"/clubs/{new_club.pk}/data/")
    assert response.status_code == 200 and "named placeholders" in response.content.decode()
    mine = Ruling.objects.filter(club=new_club, ruled_by=organiser)
    assert mine.count() == Ruling.objects.filter(club=busy_club.club, ruled_by=organiser).count() > 0
    assert not Account.objects.filter(club=new_club, user__in=busy_club.members).exists()
