"""Writes for members and clubs (docs/style.md: services own every write).

Every function here is keyword-only, opens its own transaction and raises a
`DomainError` subclass (below) whose message can be shown to the member.
"""

from __future__ import annotations

import logging
import re
import secrets
import smtplib
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import BadHeaderError, send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, InternalError, transaction
from django.db.models import QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from kernel.errors import DomainError
from kernel.errors import PermissionDenied as NotAllowed
from kernel.text import text_problem

from . import signals, throttle
from .access import is_member, membership_of
from .models import Club, Invitation, Membership, User
from .selectors import name_clashes
from .zones import is_zone

logger = logging.getLogger(__name__)

CLUB_NAME_MAX_LENGTH = 80  # Club.name
INVITATION_DEFAULT_VALIDITY = timedelta(days=7)
INVITATION_MIN_VALIDITY = timedelta(hours=1)
INVITATION_MAX_VALIDITY = timedelta(days=30)
# secrets.token_urlsafe(32): 43 characters of [A-Za-z0-9_-]. Anything else is not a token of ours.
_TOKEN_BYTES = 32
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,64}")


class NotFound(DomainError):
    """The thing asked for does not exist, or not in this club (shown as 404)."""


class InvitationNotFound(NotFound):
    def __init__(self) -> None:
        super().__init__(
            "This invitation link is not valid. Check that you copied the whole link, "
            "or ask the organiser for a new one."
        )


class InvitationGone(DomainError):
    """The invitation existed but can no longer be used (shown as 410)."""


class AlreadyMember(DomainError):
    def __init__(self, club: Club) -> None:
        super().__init__(f"You are already a member of {club.name}.")
        self.club = club


class InvitationForAnother(DomainError):
    """An invitation by email opened by an account with another address (shown as 403)."""

    def __init__(self, invitation: Invitation) -> None:
        super().__init__(
            f"This invitation was sent to {invitation.email} and works only for the account with "
            "that address. Log in with that account, or ask the organiser to invite your address."
        )


class InvalidInput(DomainError):
    """Input a form could not catch (shown next to the form)."""


class NameTaken(DomainError):
    """Another member of the club is already shown under this name (compared case-insensitively)."""

    def __init__(self, club: Club, name: str) -> None:
        super().__init__(
            f"A member of {club.name} is already called “{name}”. Choose another display "
            "name on your profile page, then open the invitation again."
        )
        self.club = club


class LastOrganiser(DomainError):
    def __init__(self) -> None:
        super().__init__("A club needs at least one organiser: promote someone else first.")


# --- clubs -----------------------------------------------------------------------------------------


def club_name_error(name: str) -> str | None:
    """Why `name` (already stripped) cannot name a club, or None. A club name goes into mail subjects
    and page titles: one line of printable text."""
    if not name or len(name) > CLUB_NAME_MAX_LENGTH:
        return f"Give the club a name of at most {CLUB_NAME_MAX_LENGTH} characters."
    if any(unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"} for char in name):
        return "A club name is one line of plain text: no line breaks, tabs or invisible control characters."
    return None


def club_create(*, name: str, currency: str, credit_limit: int, creator: User) -> Club:
    """Create a club; its creator becomes its first organiser. Raises InvalidInput for a name that is
    not one line of plain text (control or format characters: kernel/text.py)."""
    name = name.strip()
    error = text_problem(name, what="A club name") or club_name_error(name)
    if error:
        raise InvalidInput(error)
    with transaction.atomic():
        club = Club.objects.create(name=name, currency=currency.upper(), credit_limit=credit_limit)
        Membership.objects.create(club=club, user=creator, role=Membership.Role.ORGANISER)
    return club


def club_update(*, club_id: int, by: User, name: str, currency: str, credit_limit: int) -> Club:
    """Change a club's name, currency and credit limit (cents, >= 0).

    Raises NotAllowed unless `by` organises the club, InvalidInput on bad values.
    """
    name = name.strip()
    currency = currency.strip().upper()
    error = text_problem(name, what="A club name") or club_name_error(name)
    if error:
        raise InvalidInput(error)
    if len(currency) != 3 or not currency.isalpha() or not currency.isascii():
        raise InvalidInput("Use a three-letter currency code such as USD, EUR or GBP.")
    if credit_limit < 0:
        raise InvalidInput("The credit limit cannot be below zero.")
    with transaction.atomic(durable=True):
        club = Club.objects.select_for_update().get(pk=club_id)
        _require_organiser(club_id=club_id, user=by)
        was = club.currency
        club.name, club.currency, club.credit_limit = name, currency, credit_limit
        try:
            with transaction.atomic():
                club.save(update_fields=["name", "currency", "credit_limit"])
        except (IntegrityError, InternalError) as exc:
            # Every amount in the books is in the currency it was posted in: PostgreSQL refuses a new
            # currency once the club has a journal entry (ledger migration 0003, a layer above this one).
            if "currency never changes" not in str(exc):
                raise
            raise InvalidInput(f"The currency stays {was}: the club's books already have entries in it.") from None
    return club


def _require_organiser(*, club_id: int, user: User) -> Membership:
    membership = membership_of(user=user, club_id=club_id)
    if membership is None or not membership.is_organiser:
        raise NotAllowed("Only the club's organisers can do that.")
    return membership


# --- invitations -----------------------------------------------------------------------------------


def invitation_create(
    *,
    club_id: int,
    created_by: User,
    email: str = "",
    valid_for: timedelta = INVITATION_DEFAULT_VALIDITY,
    site_url: str,
    now: datetime | None = None,
) -> Invitation:
    """Create a single-use invitation to one club, valid for `valid_for`.

    With an email address, the link is mailed there once the transaction commits (a mail that
    cannot be sent leaves the invitation pending and sets `invitation.mail_failed`; the organiser
    can copy its link from the list); without one, the organiser shares the link. An invitation
    by email can only be used by that address (see `invitation_accept`). `site_url` is the site's root
    ("https://club.example/") used to build that link.
    Raises NotAllowed unless `created_by` organises the club; InvalidInput for a
    malformed address, an out-of-range validity, an address that already belongs
    to a member, one with a pending invitation, or too many invitation mails in an hour.
    """
    now = now or timezone.now()
    email = email.strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise InvalidInput("Enter a valid email address, or leave it empty to make a shareable link.") from None
    if not INVITATION_MIN_VALIDITY <= valid_for <= INVITATION_MAX_VALIDITY:
        raise InvalidInput("An invitation can be valid for between one hour and 30 days.")
    with transaction.atomic(durable=True):
        club = Club.objects.select_for_update().get(pk=club_id)
        _require_organiser(club_id=club_id, user=created_by)
        if email:
            if Membership.objects.filter(club=club, user__email__iexact=email).exists():
                raise InvalidInput(f"{email} already belongs to a member of {club.name}.")
            pending = Invitation.objects.filter(
                club=club,
                email__iexact=email,
                used_at__isnull=True,
                revoked_at__isnull=True,
                expires_at__gt=now,
            )
            if pending.exists():
                raise InvalidInput(f"{email} already has a pending invitation; revoke it to send a new one.")
        if email and not throttle.hit(
            kind="invitation-mail", value=str(created_by.pk), limit=settings.INVITATION_MAILS_PER_ORGANISER
        ):
            raise InvalidInput(
                "You have sent many invitation emails in the last hour. Try again later, "
                "or make a shareable link (leave the address empty)."
            )
        invitation = Invitation.objects.create(
            club=club,
            token=secrets.token_urlsafe(_TOKEN_BYTES),
            email=email,
            created_by=created_by,
            expires_at=now + valid_for,
        )
        if email:
            transaction.on_commit(partial(_invitation_send, invitation=invitation, site_url=site_url))
    return invitation


def invitation_url(*, invitation: Invitation, site_url: str) -> str:
    return site_url.rstrip("/") + reverse("invitation_accept", args=[invitation.token])


def _invitation_send(*, invitation: Invitation, site_url: str) -> None:
    """Mail the link (after commit). A failure is logged and marked on the object, never raised:
    the invitation is saved and its link works whatever the mail server says."""
    context = {
        "club": invitation.club,
        "inviter": invitation.created_by,
        "invitation": invitation,
        "url": invitation_url(invitation=invitation, site_url=site_url),
    }
    club_name = " ".join(invitation.club.name.split())  # a header is one line, whatever was stored
    try:
        send_mail(
            subject=f"You are invited to join {club_name}",
            message=render_to_string("accounts/email/invitation.txt", context),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[invitation.email],
        )
    except (BadHeaderError, smtplib.SMTPException, OSError, ValueError):
        logger.exception("invitation %s: the mail to its address could not be sent", invitation.pk)
        invitation.mail_failed = True


def invitation_revoke(*, club_id: int, invitation_id: int, by: User, now: datetime | None = None) -> Invitation:
    """Revoke a pending invitation so its link stops working.

    Raises NotAllowed unless `by` organises the club, NotFound if the invitation is
    not this club's, InvalidInput if it was already used or revoked.
    """
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        _require_organiser(club_id=club_id, user=by)
        invitation = Invitation.objects.select_for_update().filter(pk=invitation_id, club_id=club_id).first()
        if invitation is None:
            raise NotFound("No such invitation in this club.")
        if invitation.used_at is not None:
            raise InvalidInput("That invitation has already been used.")
        if invitation.revoked_at is not None:
            raise InvalidInput("That invitation was already revoked.")
        invitation.revoked_at = now
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_check(*, token: str, now: datetime | None = None) -> Invitation:
    """Return the usable invitation for `token` (no lock, no write).

    Raises InvitationNotFound for an unknown or malformed token and InvitationGone
    for one that expired, was used or was revoked.
    """
    return _invitation_usable(Invitation.objects.select_related("club", "created_by"), token=token, now=now)


def _invitation_usable(queryset: QuerySet[Invitation], *, token: str, now: datetime | None) -> Invitation:
    if not _TOKEN_SHAPE.fullmatch(token):
        raise InvitationNotFound()
    invitation = queryset.filter(token=token).first()
    # The lookup already matched; compare in constant time anyway so nothing about a token
    # can be learned from how long a refusal takes in Python.
    if invitation is None or not secrets.compare_digest(invitation.token.encode(), token.encode()):
        raise InvitationNotFound()
    now = now or timezone.now()
    if invitation.revoked_at is not None:
        raise InvitationGone("This invitation was withdrawn by the club's organiser. Ask them for a new one.")
    if invitation.used_at is not None:
        raise InvitationGone(
            "This invitation has already been used. Each invitation works once; ask the organiser for a new one."
        )
    if invitation.expires_at <= now:
        raise InvitationGone("This invitation has expired. Ask the organiser for a new one.")
    return invitation


def invitation_accept(*, token: str, user: User, now: datetime | None = None) -> Membership:
    """Use the invitation: `user` joins its club as a member, and the invitation is spent.

    Locks the invitation row so it is used once. Raises InvitationNotFound,
    InvitationGone, InvitationForAnother (an invitation by email, and `user` has another
    address), or AlreadyMember (both leave the invitation unused).
    """
    now = now or timezone.now()
    with transaction.atomic(durable=True):
        invitation = _invitation_usable(Invitation.objects.select_for_update(), token=token, now=now)
        if not invitation_fits(invitation=invitation, email=user.email):
            raise InvitationForAnother(invitation)
        return _invitation_join(invitation=invitation, user=user, now=now)


def invitation_fits(*, invitation: Invitation, email: str) -> bool:
    """Whether an account with `email` may use the invitation: a link for anyone, or the invited address."""
    return not invitation.email or invitation.email.strip().lower() == email.strip().lower()


def _invitation_join(*, invitation: Invitation, user: User, now: datetime) -> Membership:
    """Add the membership and mark the invitation used. Expects the invitation row locked; locks the
    club row, so two people joining at once under one name cannot both get in. Raises AlreadyMember,
    NameTaken (another member is shown under the joiner's name)."""
    club = Club.objects.select_for_update().get(pk=invitation.club_id)
    if is_member(user=user, club_id=invitation.club_id):
        raise AlreadyMember(club)
    if name_clashes(user=user, name=user.shown_name, club_ids=[club.pk]):
        raise NameTaken(club, user.shown_name)
    membership = Membership.objects.create(club_id=invitation.club_id, user=user, role=Membership.Role.MEMBER)
    invitation.used_at, invitation.used_by = now, user
    invitation.save(update_fields=["used_at", "used_by"])
    return membership


def invitation_accept_new_account(
    *,
    token: str,
    username: str,
    display_name: str,
    email: str,
    password: str,
    time_zone: str = "",
    now: datetime | None = None,
) -> Membership:
    """Create an account and join the invitation's club with it, in one transaction.

    The caller validates the password (Django's validators) and the form; this
    checks what a race could change: the invitation, the username and the email
    (unique case-insensitively; for an invitation by email, the invited address: the
    link reached that mailbox, which proves the address). ``time_zone``: the browser's, when it is one of
    the zones we know (accounts/zones.py); else the site's. Raises InvitationNotFound, InvitationGone or
    InvalidInput; on any error no account is created.
    """
    now = now or timezone.now()
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise InvalidInput("Enter a valid email address.") from None
    problem = text_problem(display_name, what="A display name")
    if problem:
        raise InvalidInput(problem)
    with transaction.atomic(durable=True):
        invitation = _invitation_usable(Invitation.objects.select_for_update(), token=token, now=now)
        if not invitation_fits(invitation=invitation, email=email):
            raise InvalidInput(f"This invitation was sent to {invitation.email}: the new account uses that address.")
        if User.objects.filter(username__iexact=username).exists():
            raise InvalidInput("That username is taken; choose another.")
        if User.objects.filter(email__iexact=email).exists():
            raise InvalidInput("That email address belongs to another account. Log in with it instead.")
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    username=username,
                    email=email,
                    password=password,
                    display_name=display_name.strip(),
                    time_zone=time_zone if is_zone(time_zone) else settings.TIME_ZONE,
                )
        except IntegrityError:  # someone took the name or address since the check above
            raise InvalidInput("That username or email address was just taken; choose another.") from None
        try:
            return _invitation_join(invitation=invitation, user=user, now=now)
        except NameTaken as exc:  # the account is not kept: the transaction rolls back
            raise InvalidInput(
                f"A member of {exc.club.name} is already called “{user.shown_name}”: choose another display name."
            ) from None


# --- memberships -----------------------------------------------------------------------------------


def _club_memberships_locked(*, club_id: int, by: User, membership_id: int) -> tuple[Membership, list[Membership]]:
    """Lock every membership of the club (in id order, so callers queue rather than deadlock).

    Returns the target membership and the locked list. Raises NotAllowed unless `by`
    is an organiser *after* the lock (another organiser may just have demoted them),
    NotFound if the membership is not in this club.
    """
    memberships = list(Membership.objects.select_for_update().filter(club_id=club_id).order_by("pk"))
    actor = next((m for m in memberships if m.user_id == by.pk), None)
    if actor is None or not actor.is_organiser:
        raise NotAllowed("Only the club's organisers can do that.")
    target = next((m for m in memberships if m.pk == membership_id), None)
    if target is None:
        raise NotFound("No such member in this club.")
    return target, memberships


def _organiser_count(memberships: list[Membership]) -> int:
    return sum(1 for m in memberships if m.is_organiser)


def membership_promote(*, club_id: int, membership_id: int, by: User) -> Membership:
    """Make a member an organiser. Raises NotAllowed, NotFound, InvalidInput."""
    with transaction.atomic(durable=True):
        target, _ = _club_memberships_locked(club_id=club_id, by=by, membership_id=membership_id)
        if target.is_organiser:
            raise InvalidInput(f"{target.user.shown_name} is already an organiser.")
        target.role = Membership.Role.ORGANISER
        target.save(update_fields=["role"])
    return target


def membership_demote(*, club_id: int, membership_id: int, by: User) -> Membership:
    """Make an organiser a plain member; never the last organiser.

    Locks the club's memberships so two organisers demoting each other at once
    cannot leave the club with none. Raises NotAllowed, NotFound, InvalidInput, LastOrganiser.
    """
    with transaction.atomic(durable=True):
        target, memberships = _club_memberships_locked(club_id=club_id, by=by, membership_id=membership_id)
        if not target.is_organiser:
            raise InvalidInput(f"{target.user.shown_name} is not an organiser.")
        if _organiser_count(memberships) <= 1:
            raise LastOrganiser()
        target.role = Membership.Role.MEMBER
        target.save(update_fields=["role"])
    return target


def membership_remove(*, club_id: int, membership_id: int, by: User) -> None:
    """Remove someone from the club; an organiser (yourself included) only if another remains.

    Their account and their history elsewhere stay. Their seats at the club's tables are left
    and their turns in hands being played take the default action at once
    (``accounts.signals.membership_ended``, sent after this transaction commits).
    Raises NotAllowed, NotFound, LastOrganiser.
    """
    with transaction.atomic(durable=True):
        target, memberships = _club_memberships_locked(club_id=club_id, by=by, membership_id=membership_id)
        if target.is_organiser and _organiser_count(memberships) <= 1:
            raise LastOrganiser()
        target.delete()
    signals.membership_ended.send(sender=Membership, user=target.user, club_id=club_id)


# --- profile -------------------------------------------------------------------------------------

PROFILE_FIELDS = frozenset(
    {"display_name", "time_zone", "away", "quiet_start", "quiet_end", "turn_notices", "turn_reminder"}
)


def profile_update(*, user: User, changes: Mapping[str, Any]) -> int:
    """Save the member's changed profile fields (only those: the digest task or the away button in
    another tab may have changed other columns meanwhile). A changed time zone or quiet hours
    re-times their running turn clocks; going away makes their turns take the default action at
    once (``accounts.signals``, after the commit). Returns how many hands moved on; ``user`` is updated.
    """
    unknown = set(changes) - PROFILE_FIELDS
    if unknown:
        raise InvalidInput(f"Not a profile field: {', '.join(sorted(unknown))}.")
    with transaction.atomic(durable=True):
        row = User.objects.select_for_update().get(pk=user.pk)
        before = {"time_zone": row.time_zone, "quiet_start": row.quiet_start, "quiet_end": row.quiet_end}
        was_away = row.away
        for name, value in changes.items():
            setattr(row, name, value)
            setattr(user, name, value)
        if changes:
            row.save(update_fields=sorted(changes))
    moved = 0
    if {"time_zone", "quiet_start", "quiet_end"} & set(changes):
        moved += signals.moved_count(signals.member_clock_changed.send(sender=User, user=user, **before))
    if user.away and not was_away:
        moved += signals.moved_count(signals.member_went_away.send(sender=User, user=user))
    return moved


def member_away_set(*, user: User, away: bool) -> int:
    """Mark the member away (their turns take the default action at once) or back. Returns how many
    hands moved on."""
    User.objects.filter(pk=user.pk).update(away=away)
    user.away = away
    if not away:
        return 0
    return signals.moved_count(signals.member_went_away.send(sender=User, user=user))


# --- email address ---------------------------------------------------------------------------------

EMAIL_CHANGE_VALIDITY = timedelta(days=2)
EMAIL_CHANGE_TRIES_PER_HOUR = 5
_EMAIL_CHANGE_SALT = "accounts.email-change"


def email_change_request(*, user: User, password: str, new_email: str, site_url: str) -> None:
    """Mail a confirmation link to `new_email`; the address changes only when that link is used.

    Needs the account's password. The current address (if any) is told that a change was asked for.
    Raises InvalidInput for more than EMAIL_CHANGE_TRIES_PER_HOUR tries, a wrong password, a
    malformed address, the current address, or one that belongs to another account.
    """
    new_email = new_email.strip()
    # Counted before the password check, so a borrowed session cannot guess the password here either.
    if not throttle.hit(kind="email-change", value=str(user.pk), limit=EMAIL_CHANGE_TRIES_PER_HOUR):
        raise InvalidInput("You tried to change your address many times in the last hour. Try again later.")
    if not user.check_password(password):
        raise InvalidInput("That is not your current password.")
    try:
        validate_email(new_email)
    except ValidationError:
        raise InvalidInput("Enter a valid email address.") from None
    if new_email.lower() == user.email.lower():
        raise InvalidInput("That is already your email address.")
    if User.objects.filter(email__iexact=new_email).exclude(pk=user.pk).exists():
        raise InvalidInput("That email address belongs to another account.")
    token = signing.dumps(
        {"user": user.pk, "new": new_email, "old": user.email}, salt=_EMAIL_CHANGE_SALT, compress=True
    )
    url = site_url.rstrip("/") + reverse("email_change_confirm", args=[token])
    send_mail(
        subject="Confirm your new email address",
        message=render_to_string(
            "accounts/email/email_change.txt",
            {"user": user, "url": url, "hours": int(EMAIL_CHANGE_VALIDITY.total_seconds() // 3600)},
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[new_email],
    )
    if user.email:
        send_mail(
            subject="Your email address is being changed",
            message=render_to_string("accounts/email/email_change_notice.txt", {"user": user}),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[user.email],
        )


def email_change_confirm(*, token: str) -> User:
    """Apply the address change that `token` (from the confirmation mail) carries; returns the user.

    A link works until it expires and only while the account still has the address it was asked
    from, so it works once. Raises InvalidInput for a bad, expired or spent link, or an address
    another account took meanwhile.
    """
    try:
        change = signing.loads(token, salt=_EMAIL_CHANGE_SALT, max_age=EMAIL_CHANGE_VALIDITY)
    except signing.SignatureExpired:
        raise InvalidInput("This confirmation link has expired. Ask for the change again from your profile.") from None
    except signing.BadSignature:
        raise InvalidInput("This confirmation link is not valid. Check that you copied the whole link.") from None
    with transaction.atomic(durable=True):
        user = User.objects.select_for_update().filter(pk=change.get("user")).first()
        if user is None or user.email != change.get("old"):
            raise InvalidInput("This confirmation link was already used, or your address changed since.")
        if User.objects.filter(email__iexact=change["new"]).exclude(pk=user.pk).exists():
            raise InvalidInput("That email address belongs to another account now.")
        user.email = change["new"]
        try:
            with transaction.atomic():
                user.save(update_fields=["email"])
        except IntegrityError:
            raise InvalidInput("That email address belongs to another account now.") from None
    return user
