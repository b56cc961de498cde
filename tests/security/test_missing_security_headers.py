"""Pages without a Content-Security-Policy let an injected script or style run; without a
Referrer-Policy a token in the address can travel to another site; without a Permissions-Policy
anything injected may ask for the camera or the location."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def directives(header: str) -> dict[str, list[str]]:
    parts = (part.strip().split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in parts}


def test_pages_carry_a_strict_content_security_policy(client):
    response = client.get(reverse("login"))
    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert not any("unsafe" in value for values in policy.values() for value in values)


def test_pages_carry_referrer_and_permissions_policies(client):
    response = client.get(reverse("login"))
    assert response["Referrer-Policy"] == "same-origin"
    permissions = response["Permissions-Policy"]
    for feature in ("camera", "microphone", "geolocation", "payment"):
        assert f"{feature}=()" in permissions


def test_the_error_page_has_no_inline_style(client, settings):
    page = (TEMPLATES / "500.html").read_text()
    assert "<style" not in page and "style=" not in page


# An executable inline script is one with no src; a JSON data block (type="application/json") is never run.
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")


@pytest.mark.parametrize(
    "template", sorted(str(p.relative_to(TEMPLATES)) for p in [*TEMPLATES.rglob("*.html"), *TEMPLATES.rglob("*.jinja")])
)
def test_templates_need_no_unsafe_inline(template):
    text = (TEMPLATES / template).read_text()
    assert not _INLINE_SCRIPT.search(text), "an inline <script> (the policy blocks it)"
    assert "<style" not in text, "an inline <style> (the policy blocks it)"
    assert not re.search(r"\sstyle\s*=", text), 'a style="" attribute (the policy blocks it)'
    assert not re.search(r"\son[a-z]+\s*=", text), "an inline event handler (the policy blocks it)"
