"""Profile settings of asynchronous play: away, quiet hours (at most 12 hours), turn emails."""

from __future__ import annotations

from datetime import time

import pytest
from django.urls import reverse

import engine
from accounts.models import User
from games import services
from games.models import HandAction
from tests.games.helpers import make_table


def profile_data(user: User, **extra: str) -> dict[str, str]:
    return {
        "display_name": user.display_name,
        "email": user.email,
        "time_zone": "Europe/London",
        "turn_notices": "each",
        "turn_reminder": "on",
        **extra,
    }


@pytest.mark.django_db
def test_quiet_hours_are_saved_in_the_members_zone(club_setup, client_for) -> None:
    user = club_setup.members[0]
    response = client_for(user).post(
        reverse("profile"), profile_data(user, quiet_start="23:00", quiet_end="07:00", turn_notices="digest")
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.quiet_start, user.quiet_end, user.time_zone) == (time(23), time(7), "Europe/London")
    assert user.turn_notices == "digest" and user.turn_reminder


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("20:00", "09:00", "at most 12 hours"),
        ("23:00", "", "or neither"),
        ("08:00", "08:00", "different times"),
    ],
)
def test_quiet_hours_longer_than_twelve_hours_or_half_given_are_refused(
    club_setup, client_for, start, end, message
) -> None:
    user = club_setup.members[0]
    response = client_for(user).post(reverse("profile"), profile_data(user, quiet_start=start, quiet_end=end))
    assert response.status_code == 200 and message in response.content.decode()
    user.refresh_from_db()
    assert user.quiet_start is None


@pytest.mark.django_db
def test_going_away_takes_the_drops_default_when_it_opens_and_coming_back_stops_it(club_setup, client_for) -> None:
    a, b, _ = club_setup.members
    table = make_table(club_setup.club, club_setup.organiser, engine.PiranhaRules(), players=[a, b])
    hand = services.table_start(table_id=table.pk, user=a)  # the sealed drop waits for both
    response = client_for(a).post(reverse("away_toggle"), {"away": "1", "next": f"/tables/{table.pk}/"}, follow=True)
    assert "You are away" in response.content.decode()
    # a's default (out) waits for b, like a clock that ran out in a sealed drop: taken at once, its moment would
    # tell b that a is away and so what a chose. b sees no sign of it.
    assert not HandAction.objects.filter(hand=hand).exists()
    page = client_for(b).get(f"/tables/{table.pk}/").content.decode()
    assert 'class="badge away"' not in page
    assert 'class="badge away"' in client_for(a).get(f"/tables/{table.pk}/").content.decode()  # a sees their own
    hand.refresh_from_db()
    services.hand_act(hand_id=hand.pk, user=b, action={"type": "in"}, version=hand.version)
    row = HandAction.objects.get(hand=hand, user=a)
    assert row.is_timeout and row.action == {"type": "out"}
    client_for(a).post(reverse("away_toggle"), {"away": "0"})
    a.refresh_from_db()
    assert not a.away


@pytest.mark.django_db
def test_the_away_toggle_refuses_an_outside_next(client_for, club_setup) -> None:
    user = club_setup.members[0]
    response = client_for(user).post(reverse("away_toggle"), {"away": "1", "next": "https://evil.example/"})
    assert response["Location"] == reverse("profile")
    assert client_for(user).get(reverse("away_toggle")).status_code == 405


@pytest.mark.django_db
def test_saving_the_profile_writes_only_what_the_form_changed(club_setup, client_for, monkeypatch) -> None:
    """The digest task and the away button (another tab) may write the row while the form is being saved."""
    from datetime import date

    from accounts.forms import ProfileForm

    user = club_setup.members[0]
    real_clean = ProfileForm.clean

    def clean_while_others_write(form: ProfileForm) -> dict:
        User.objects.filter(pk=user.pk).update(digest_sent_on=date(2030, 1, 2), away=True)
        return real_clean(form)

    monkeypatch.setattr(ProfileForm, "clean", clean_while_others_write)
    response = client_for(user).post(reverse("profile"), profile_data(user, display_name="New name"))
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == "New name" and user.time_zone == "Europe/London"
    assert user.digest_sent_on == date(2030, 1, 2) and user.away  # not overwritten with the stale values
