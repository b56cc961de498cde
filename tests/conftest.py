"""Shared fixtures: a club with an organiser and members, logged-in clients."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client, TestCase
from hypothesis import settings as hypothesis_settings

from accounts.models import Club, Membership, User
from tests import schedule
from tests.accounts.factories import ClubFactory, MembershipFactory
from tests.dbbackend.creation import drop_run_template
from tests.games.celery_worker import Proc, purge_queue


def pytest_addoption(parser: pytest.Parser) -> None:
    schedule.add_option(parser)


def _xdist_controller(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    # The run's id, known to the controller too, which drops the workers' template database at the end
    # (tests/dbbackend/creation.py); xdist hands it to every worker.
    if _xdist_controller(config) and not config.option.testrunuid:
        config.option.testrunuid = uuid.uuid4().hex


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    schedule.longest_files_first(items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    schedule.measure(report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if schedule.storing(session.config):
        schedule.store()
    if _xdist_controller(session.config):
        drop_run_template(session.config.option.testrunuid)


# --- the two database roles (docs/settings-and-security.md, "The two database roles") ------------------------------------
# The test database is created, migrated and finally dropped as the owner (DATABASE_OWNER_URL);
# every test connects as the application role (DATABASE_URL), with only the rights the site has.

_APP_CREDENTIALS: dict[str, Any] = {}


def _connect_default_as(credentials: dict[str, Any]) -> None:
    connection = connections["default"]
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()  # a pool keeps the role it was opened with
    connection.settings_dict.update(credentials)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    owner = settings.DATABASES.get("owner")
    if owner:
        default = connections["default"].settings_dict
        _APP_CREDENTIALS.update(USER=default.get("USER"), PASSWORD=default.get("PASSWORD"))
        _connect_default_as({"USER": owner.get("USER"), "PASSWORD": owner.get("PASSWORD")})


def _commit_without_waiting_for_the_disk() -> None:
    """A commit to the test database returns before its WAL reaches the disk (synchronous_commit = off, set on the
    database as its owner, so every session has it: the tests', the servers' and the Celery workers' they start).
    Only a crash of PostgreSQL itself could lose the last commits, which no test does; each commit still happens
    whole, in order, and is seen by every other session at once."""
    connection = connections["default"]
    with connection.cursor() as cursor:
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
    connection.close()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock():
        _commit_without_waiting_for_the_disk()
    if not _APP_CREDENTIALS:
        yield
        return
    with django_db_blocker.unblock():
        _connect_default_as(_APP_CREDENTIALS)
    yield
    owner = settings.DATABASES["owner"]
    with django_db_blocker.unblock():
        _connect_default_as({"USER": owner.get("USER"), "PASSWORD": owner.get("PASSWORD")})


# Property tests check behaviour, not speed: a loaded machine must not fail them on a per-example deadline.
hypothesis_settings.register_profile("club", deadline=None)
hypothesis_settings.load_profile("club")


@dataclass
class ClubSetup:
    club: Club
    organiser: User
    members: list[User]
    outsider: User

    @property
    def everyone(self) -> list[User]:
        return [self.organiser, *self.members]


def club_setup_make() -> ClubSetup:
    club = ClubFactory()
    organiser = MembershipFactory(club=club, role=Membership.Role.ORGANISER).user
    members = [MembershipFactory(club=club).user for _ in range(3)]
    outsider = MembershipFactory().user  # a member of another club
    return ClubSetup(club=club, organiser=organiser, members=members, outsider=outsider)


@pytest.fixture
def club_setup(db: None) -> ClubSetup:
    return club_setup_make()


class _ModuleRows(TestCase):
    """Django's setUpTestData, for a module: one transaction, each test's own a savepoint inside it."""

    databases = {"default"}


@pytest.fixture(scope="module")
def module_rows(django_db_setup: None, django_db_blocker: Any) -> Iterator[Any]:
    """Rows made once for a whole module of `django_db` tests (not transaction=True): a module-scoped fixture
    that asks for this one makes them inside ``with module_rows():``. They are written in a transaction left
    open while the module runs, every test runs in a savepoint of it that is rolled back after the test (so
    what one test changes no other sees), and the transaction is rolled back after the module."""
    with django_db_blocker.unblock():
        atomics = _ModuleRows._enter_atomics()
    try:
        yield django_db_blocker.unblock
    finally:
        with django_db_blocker.unblock():
            _ModuleRows._rollback_atomics(atomics)


def rows_kept_for_module(name: str, build: Callable[[ClubSetup], Any]) -> tuple[Any, Any]:
    """Two fixtures for a module of `django_db` tests (one pair a module), to assign to ``_kept_rows`` and
    ``<name>``: what ``build`` makes from a fresh club, made once for the module (``module_rows``), and each
    test's own deep copy of those objects (what a test writes is rolled back after it). Not for modules whose
    fixtures other modules import: those would find no module-scoped rows of their own."""

    @pytest.fixture(scope="module", name="_kept_rows")
    def made(module_rows: Any) -> Any:
        with module_rows():
            return build(club_setup_make())

    # Named, not looked up: pytest sets up the module's rows before the test's own transaction only when the
    # test's fixture names them.
    @pytest.fixture(name=name)
    def kept(_kept_rows: Any, db: None) -> Any:
        return copy.deepcopy(_kept_rows)

    return made, kept


@pytest.fixture
def client_for():
    """Return a function that gives a test client logged in as a user."""

    def make(user: User | None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        return client

    return make


@pytest.fixture(autouse=True)
def _fresh_rate_limits(settings) -> None:
    """Each test counts mails and requests afresh: the counters live in the shared Redis."""
    settings.RATE_LIMIT_PREFIX = f"limit-{uuid.uuid4().hex}"


@pytest.fixture(autouse=True)
def _empty_run_queue() -> Iterator[None]:
    """Each test ends with this process's Celery queues empty. Tests that deal clocked hands with no worker leave
    alarms there (due a minute on); a worker a later test starts would fill its prefetch with them and hold that
    test's own alarms back. Emptied after the test, never before: a test's fixtures may queue what its worker is
    to run."""
    yield
    purge_queue()


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    """Worker, beat and web processes a test starts (it appends them); stopped (or already killed) at its
    end (the queue is emptied after every test: ``_empty_run_queue``)."""
    started: list[Proc] = []
    yield started
    for proc in started:  # all at once: a worker's warm shutdown takes a second or more
        proc.terminate()
    for proc in started:
        proc.stop()
