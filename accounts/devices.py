"""Members' device keys (docs/fairness.md "Protocol" 1-3): the public halves of the keys their browsers keep to
sign cuts of the deal. A new device is mailed to its member, listed on the profile page with its short
fingerprint and in GET /profile/devices/, where the member's other browsers compare it with the devices they
knew (static/js/device.js): a server that registers a key of its own in a member's name is seen there.

PostgreSQL keeps the rules too (accounts migration 0007): the database's clock dates a device, a device is never
edited or removed (at most marked retired) and a member has at most ``MAX_ACTIVE`` active devices.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

import engine
from kernel.errors import DomainError
from kernel.text import text_problem

from .models import DeviceKey, User

log = logging.getLogger(__name__)

MAX_ACTIVE = 5  # as accounts migration 0007 holds
LABEL_MAX = 60


class DeviceRefused(DomainError):
    pass


@dataclass(frozen=True)
class Registered:
    device: DeviceKey
    new: bool


def device_register(*, user: User, n: object, e: object, label: object) -> Registered:
    """Register ``user``'s device key (n: 2048-bit modulus as lowercase hex, e: 65537) under ``label``; the
    same key again returns the device already registered (``new`` False). Mails the member on commit.
    Raises DeviceRefused for a malformed key or label, a key registered to another member, or a sixth
    active device."""
    if not engine.is_device_modulus(n):
        raise DeviceRefused("A device key's n is exactly 2048 bits, written as lowercase hex without leading zeros.")
    if isinstance(e, bool) or e != engine.commitment.RSA_E:
        raise DeviceRefused("A device key's exponent e is 65537.")
    if not isinstance(label, str):
        raise DeviceRefused("Name the device with a few words.")
    label = " ".join(label.split())
    if len(label) > LABEL_MAX:
        raise DeviceRefused(f"Keep the device's name to {LABEL_MAX} characters.")
    problem = text_problem(label, what="A device's name") if label else None
    if problem:
        raise DeviceRefused(problem)
    assert isinstance(n, str)
    fingerprint = engine.device_fingerprint(n, engine.commitment.RSA_E)
    with transaction.atomic(durable=True):
        User.objects.select_for_update().filter(pk=user.pk).first()  # one registration of a member at a time
        known = DeviceKey.objects.filter(fingerprint=fingerprint).first()
        if known is not None and known.user_id == user.pk:
            return Registered(device=known, new=False)
        if known is not None:
            raise DeviceRefused("That key is registered for another member: make a new one in this browser.")
        if DeviceKey.objects.filter(user=user, retired_at__isnull=True).count() >= MAX_ACTIVE:
            raise DeviceRefused(
                f"You have {MAX_ACTIVE} devices registered already: retire one you no longer use on your profile "
                "page first."
            )
        try:
            with transaction.atomic():
                device = DeviceKey.objects.create(
                    user=user, n=n, e=engine.commitment.RSA_E, fingerprint=fingerprint, label=label
                )
        except IntegrityError as exc:
            raise DeviceRefused("That key could not be registered; make a new one in this browser.") from exc
        device.refresh_from_db(fields=["registered_at"])  # the database's clock dated it
        transaction.on_commit(lambda: device_mail(device=device))
    return Registered(device=device, new=True)


def device_retire(*, user: User, fingerprint: str) -> DeviceKey:
    """Mark ``user``'s device retired: it cuts no more deals, and stays listed (never removed). Retiring it again
    changes nothing. Raises DeviceRefused for a device that is not theirs."""
    with transaction.atomic(durable=True):
        device = DeviceKey.objects.select_for_update().filter(user=user, fingerprint=fingerprint).first()
        if device is None:
            raise DeviceRefused("That device is not one of yours.")
        if device.retired_at is None:
            device.retired_at = timezone.now()
            device.save(update_fields=["retired_at"])
    return device


def device_mail(*, device: DeviceKey) -> None:
    """Tell the member a device was registered in their name (fingerprint, name, time), by mail."""
    user = device.user
    if not user.email:
        return
    try:
        send_mail(
            subject="A new device can cut your deals",
            message=render_to_string("accounts/email/device_registered.txt", {"user": user, "device": device}),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[user.email],
        )
    except (smtplib.SMTPException, OSError):  # the device stays registered; the pages still list it
        log.exception("could not mail member %s about device %s", user.pk, device.fingerprint[:16])


def device_list(*, user: User) -> list[DeviceKey]:
    """Every device ``user`` registered, oldest first, retired ones included (they are never removed)."""
    return list(DeviceKey.objects.filter(user=user).order_by("registered_at", "pk"))


def device_to_dict(device: DeviceKey) -> dict[str, Any]:
    return {
        "fingerprint": device.fingerprint,
        "label": device.label,
        "registered_at": _iso(device.registered_at),
        "n": device.n,
        "e": device.e,
        "retired_at": _iso(device.retired_at) if device.retired_at else None,
    }


def _iso(at: datetime) -> str:
    return at.isoformat()
