"""A member deletes their account. Their name is replaced in every record by "Former member #N",
their login is disabled and their personal fields erased; their ledger lines, hands and rulings
stay (the books must keep balancing: every other member's statement runs through them)."""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.erasure import user_anonymise
from accounts.models import Membership, User
from games.models import AdvanceAction, ChatMessage, Seat
from kernel.errors import DomainError

from .member import hands_dealt_to

#: what stays, told on the confirmation page and in the data download
WHAT_STAYS = [
    'Your ledger lines: every chip you won or paid stays in the books under "Former member #{id}", '
    "because the other members' balances run through them and the books must still add up. "
    "Your balance in each club stays on its balance sheet so the club can settle up.",
    "The hands you played and your actions in them, so the other players' hand histories stay whole.",
    "Organisers' rulings and settlements that name you, under the same new name.",
]
WHAT_GOES = [
    "Your username, display name, email address and names; your password (you can't log in again).",
    "Your chat lines (hidden from everyone), your API keys, your invitations not yet used, "
    "your private advance actions and your seats at tables.",
]


class AccountDeleteRefused(DomainError):
    pass


def account_delete_refusal(*, user: User) -> str:
    """Why ``user`` can't delete their account now ("" when they can)."""
    playing = hands_dealt_to(user=user).filter(finished_at__isnull=True).first()
    if playing is not None:
        return (
            f"You are dealt into a hand being played at {playing.table.name}. You can delete your account "
            f"when it ends; sit out at that table so no new hand deals you in."
        )
    for membership in Membership.objects.filter(user=user, role=Membership.Role.ORGANISER).select_related("club"):
        others = Membership.objects.filter(club=membership.club).exclude(user=user)
        if others.exists() and not others.filter(role=Membership.Role.ORGANISER).exists():
            return (
                f"You are the only organiser of {membership.club.name}. Make another member an organiser "
                f"first (on its Members page), then delete your account."
            )
    return ""


#: wrong passwords allowed on the deletion form per member, per quarter of an hour
PASSWORD_TRIES = 5
TRIES_WINDOW_SECONDS = 15 * 60


def account_delete(*, user: User, password: str) -> User:
    """Delete ``user``'s account as described above. Raises AccountDeleteRefused (wrong password,
    too many wrong passwords, a hand being played, the last organiser of a club with members)."""
    # Keyed by the account and its password's stored hash: a new password starts a new count.
    tries_key = f"account-delete-tries:{user.pk}:{hashlib.sha256(user.password.encode()).hexdigest()[:16]}"
    if int(cache.get(tries_key, 0)) >= PASSWORD_TRIES:
        raise AccountDeleteRefused("Too many wrong passwords: try again in a quarter of an hour.")
    if not user.check_password(password or ""):
        cache.add(tries_key, 0, timeout=TRIES_WINDOW_SECONDS)
        cache.incr(tries_key)
        raise AccountDeleteRefused("That is not your password; your account is unchanged.")
    with transaction.atomic(durable=True):
        locked = User.objects.select_for_update().get(pk=user.pk)
        refusal = account_delete_refusal(user=locked)
        if refusal:
            raise AccountDeleteRefused(refusal)
        now = timezone.now()
        Seat.objects.filter(user=locked, left_at__isnull=True).update(left_at=now, sitting_out=True)
        AdvanceAction.objects.filter(user=locked, status=AdvanceAction.Status.PENDING).update(
            status=AdvanceAction.Status.CANCELLED, reason="The member deleted their account."
        )
        ChatMessage.objects.filter(user=locked, hidden_at__isnull=True).update(hidden_at=now, hidden_by=locked)
        user_anonymise(user=locked)
    return locked
