"""An attacker writes X-Forwarded-For himself to choose the address the lockout is keyed on.

The site is served by a real uvicorn process started with the project's flags (`config.serve`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from axes.models import AccessAttempt

from config.serve import ProxyTrustError, proxy_flags
from tests.accounts.factories import PASSWORD, UserFactory

from .site import ROOT, Browser, running_site

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_forged_forwarded_for_from_an_untrusted_peer_does_not_change_the_address(tmp_path):
    user = UserFactory()
    with running_site(tmp_path) as site:
        status = Browser(site.port).post_form(
            "/login/", {"username": user.username, "password": "wrong"}, headers={"X-Forwarded-For": "203.0.113.77"}
        )
    assert status == 200
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["127.0.0.1"]


def test_wrong_passwords_from_rotating_forwarded_for_headers_get_locked(tmp_path):
    user = UserFactory()
    with running_site(tmp_path) as site:
        for n in range(8):
            Browser(site.port).post_form(
                "/login/",
                {"username": user.username, "password": f"guess {n}"},
                headers={"X-Forwarded-For": f"198.51.100.{n + 1}"},
            )
        status = Browser(site.port).post_form(
            "/login/", {"username": user.username, "password": PASSWORD}, headers={"X-Forwarded-For": "198.51.100.200"}
        )
    assert status == 429  # locked: the right password does not get in either


def test_a_configured_proxy_is_believed(tmp_path):
    """The other side: behind the proxy named in FORWARDED_ALLOW_IPS the client's address is the one it names."""
    user = UserFactory()
    with running_site(tmp_path, FORWARDED_ALLOW_IPS="127.0.0.1") as site:
        # The client wrote 6.6.6.6 itself; the proxy appended the address it saw.
        Browser(site.port).post_form(
            "/login/",
            {"username": user.username, "password": "wrong"},
            headers={"X-Forwarded-For": "6.6.6.6, 203.0.113.77"},
        )
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["203.0.113.77"]


def test_trusting_every_peer_is_refused():
    with pytest.raises(ProxyTrustError):
        proxy_flags({"FORWARDED_ALLOW_IPS": "*"})
    with pytest.raises(ProxyTrustError):
        proxy_flags({"FORWARDED_ALLOW_IPS": "10.0.0.1, proxy.example"})
    assert proxy_flags({}) == ["--no-proxy-headers"]
    assert proxy_flags({"FORWARDED_ALLOW_IPS": " 172.18.0.0/16 "}) == [
        "--proxy-headers",
        "--forwarded-allow-ips",
        "172.18.0.0/16",
    ]
    started = subprocess.run(
        [sys.executable, "-m", "config.serve", "--port", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"FORWARDED_ALLOW_IPS": "*", "PATH": "/usr/bin:/bin"},
        timeout=30,
    )
    assert started.returncode == 2 and "FORWARDED_ALLOW_IPS" in started.stderr


def test_the_server_commands_name_their_proxies():
    """Neither the development server, docker-compose's web service nor the image leaves the choice to uvicorn,
    whose default trusts forwarded headers from 127.0.0.1."""
    dev = (ROOT / "scripts" / "dev.py").read_text()
    assert "web_command(" in dev
    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["command"]
    assert web[:3] == ["python", "-m", "config.serve"] and "*" not in web
    image = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "-m", "config.serve"' in image
