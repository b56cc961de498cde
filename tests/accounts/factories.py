"""factory_boy factories for members and clubs."""

from __future__ import annotations

import secrets
from datetime import timedelta

import factory
from django.utils import timezone

from accounts.models import Club, Invitation, Membership, User

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"member{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    display_name = factory.LazyAttribute(lambda user: user.username.title())
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):  # noqa: N805 - factory_boy's signature
        if create:
            obj.save()


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    currency = "USD"
    credit_limit = 100_00


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    club = factory.SubFactory(ClubFactory)
    role = Membership.Role.MEMBER


class InvitationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Invitation

    club = factory.SubFactory(ClubFactory)
    token = factory.LazyFunction(lambda: secrets.token_urlsafe(32))
    email = ""
    created_by = factory.SubFactory(UserFactory)
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(days=7))
