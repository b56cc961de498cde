"""The members' access stamps (games/live/access.py): one plain integer a member in the cache's Redis, under the
cache's own key, written by every change that may end a member's access and read alike by the action (one GET),
the publisher (one MGET) and Django's cache."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import Membership, User
from games.live.access import access_stamp, access_stamp_read, access_stamps

pytestmark = pytest.mark.django_db


def _read(user: User, other: User) -> int:
    """The member's stamp as every reader sees it (the same integer)."""
    via_cache = cache.get(f"access-stamp:{user.pk}")
    one = access_stamp_read(user.pk)
    many = access_stamps([user.pk, other.pk, user.pk])[user.pk]
    assert isinstance(one, int) and via_cache == one == many, (via_cache, one, many)
    return one


def test_every_change_of_access_gives_a_stamp_every_reader_sees_and_none_held_before(club_setup) -> None:
    a, b, _ = club_setup.members
    access_stamp(b.pk)
    seen = [access_stamp(a.pk)]
    assert _read(a, b) == seen[0] and access_stamp(a.pk) == seen[0]  # made once, then only read

    def logged_out() -> None:
        client = Client()
        client.force_login(a, backend="django.contrib.auth.backends.ModelBackend")
        assert client.post("/logout/").status_code == 302

    def password_changed() -> None:
        a.set_password("another-Passphrase-81")
        a.save()

    membership = Membership.objects.get(user=a, club=club_setup.club)

    def role_changed() -> None:
        membership.role = Membership.Role.ORGANISER
        membership.save()

    changes = [logged_out, password_changed, role_changed, membership.delete]
    for change in changes:
        change()
        stamp = _read(a, b)
        assert stamp not in seen, change
        seen.append(stamp)


def test_a_login_elsewhere_or_the_away_switch_leaves_the_stamp(club_setup) -> None:
    a, b, _ = club_setup.members
    held = access_stamp(a.pk)
    Client().force_login(a, backend="django.contrib.auth.backends.ModelBackend")  # saves last_login only
    a.away = not a.away
    a.save(update_fields=["away"])
    assert _read(a, b) == held


def test_a_member_without_a_stamp_reads_none_everywhere(club_setup) -> None:
    a, b, _ = club_setup.members
    cache.delete(f"access-stamp:{a.pk}")
    assert (
        access_stamp_read(a.pk) is None
        and access_stamps([a.pk])[a.pk] is None
        and cache.get(f"access-stamp:{a.pk}") is None
    )
    assert access_stamps([]) == {}
