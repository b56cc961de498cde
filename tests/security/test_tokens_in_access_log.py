"""Invitation, password-reset and email-change links printed in the web server's access log:
whoever reads the logs could join the club or take over an account."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from config.security import redact_secrets
from tests.accounts.factories import InvitationFactory, UserFactory

from .site import Browser, running_site

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("debug", ["false", "true"])  # production, and development's extra request log
def test_the_access_log_never_shows_a_token(tmp_path, debug):
    invitation = InvitationFactory()
    user = UserFactory()
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    reset_token = default_token_generator.make_token(user)
    with running_site(tmp_path, DEBUG=debug) as site:
        browser = Browser(site.port)
        assert browser.request("GET", f"/invite/{invitation.token}/")[0] == 200
        assert browser.request("GET", f"/invite/{invitation.token[:-4]}zzzz/")[0] == 404  # Django logs these too
        assert browser.request("GET", f"/password/reset/{uid}/{reset_token}/")[0] == 302
        assert browser.request("GET", f"/login/?next=/invite/{invitation.token}/")[0] == 200
        assert browser.request("GET", "/profile/email/confirm/eyJ1c2VyIjoxfQ:1abcde:signature-xyz/")[0] == 200
    log = site.log()
    assert re.search(r'"GET /invite/\[redacted\]/ HTTP/1.1" 200', log), log  # the access log is there
    for secret in (invitation.token, invitation.token[:-4], reset_token, "signature-xyz"):
        assert secret not in log


def test_redaction_keeps_the_rest_of_the_line():
    assert redact_secrets('1.2.3.4:5 - "GET /password/reset/MQ/set-password/ HTTP/1.1" 200') == (
        '1.2.3.4:5 - "GET /password/reset/MQ/set-password/ HTTP/1.1" 200'
    )
    assert redact_secrets("GET /login/?next=%2Finvite%2Fabcdefghijklmnopqrstuvwxyz%2F") == (
        "GET /login/?next=%2Finvite%2F[redacted]"
    )
