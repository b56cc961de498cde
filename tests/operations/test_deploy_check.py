"""The deploy check's own safeguards, without a container engine (the check itself runs in .ci/run): an
operator's .env is never touched, the stand-ins are built again after any change to them, the Debian mirror
is the one apt uses, and a published port on an address beyond loopback fails the check."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.operations.test_compose import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import deploy_check  # noqa: E402


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(deploy_check, "ROOT", tmp_path)
    return tmp_path


def test_the_throwaway_env_goes_where_the_operator_has_none(checkout, tmp_path_factory):
    work = tmp_path_factory.mktemp("work")
    env_file, settings, wrote = deploy_check.write_env(work, 18443, 18080)
    assert wrote and env_file == checkout / ".env"
    text = env_file.read_text()
    assert text.startswith(deploy_check.ENV_MARK) and f"SECRET_KEY={settings['SECRET_KEY']}\n" in text
    assert settings["PUBLISH_ADDRESS"] == "127.0.0.1" and settings["HTTPS_PORT"] == "18443"
    assert len(settings["SECRET_KEY"]) >= 50 and settings["CLUB_APP_PASSWORD"].isalnum()
    assert env_file.stat().st_mode & 0o777 == 0o600
    # One a hard-stopped check left behind is its own again.
    assert deploy_check.write_env(work, 18443, 18080)[2]


def test_an_operators_env_is_never_touched(checkout, tmp_path_factory):
    mine = "SECRET_KEY=the operator's own\n"
    (checkout / ".env").write_text(mine)
    work = tmp_path_factory.mktemp("work")
    env_file, _settings, wrote = deploy_check.write_env(work, 18443, 18080)
    assert not wrote and env_file.parent == work
    assert (checkout / ".env").read_text() == mine


def test_any_change_to_the_standins_builds_them_again(tmp_path, monkeypatch):
    folder = tmp_path / "standins"
    (folder / "redis").mkdir(parents=True)
    (folder / "redis" / "Dockerfile").write_text("FROM debian:bookworm-slim\n")
    monkeypatch.setattr(deploy_check, "STANDINS", folder)
    first = deploy_check.standin_source()
    (folder / "README.md").write_text("notes")
    assert deploy_check.standin_source() == first  # the notes are no part of an image
    (folder / "redis" / "Dockerfile").write_text("FROM debian:bookworm-slim\nUSER redis\n")
    assert deploy_check.standin_source() != first


@pytest.mark.parametrize(
    ("text", "mirror"),
    [
        (
            "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n\n"
            "Types: deb\nURIs: http://deb.debian.org/debian-security\n",
            "http://deb.debian.org/debian",
        ),
        ("deb [arch=amd64] http://mirror.example.org/debian/ bookworm main\n", "http://mirror.example.org/debian"),
        ("deb http://security.debian.org/debian-security bookworm-security main\n", "http://deb.debian.org/debian"),
    ],
)
def test_debootstrap_uses_the_mirror_apt_uses(tmp_path, text, mirror):
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(text)
    assert deploy_check.debian_mirror(tmp_path) == mirror


def test_this_machines_mirror_is_found():
    assert deploy_check.debian_mirror().startswith("http")


def test_a_port_published_beyond_loopback_fails_the_check(monkeypatch):
    published = {"tcp": ["0100007F:4A9B"], "tcp6": []}
    monkeypatch.setattr(
        deploy_check,
        "listeners",
        lambda ports: [f"{proto} {entry}" for proto, entries in published.items() for entry in entries],
    )
    deploy_check.loopback_only({19099})
    published["tcp"].append("00000000:4A9B")  # 0.0.0.0
    with pytest.raises(deploy_check.CheckFailed, match="127.0.0.1 only"):
        deploy_check.loopback_only({19099})
    published["tcp"] = []
    with pytest.raises(deploy_check.CheckFailed):  # nothing published at all is no pass either
        deploy_check.loopback_only({19099})


def test_listeners_reads_the_hosts_sockets():
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert f"tcp 0100007F:{port}" in deploy_check.listeners({port})
        deploy_check.loopback_only({port})
