"""Test profile: the embedded or given PostgreSQL and Redis, fast hashing."""

import os
import sys

if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
    # Tests run on real PostgreSQL and Redis: the embedded ones unless given (docs/design.md).
    from config.embedded import ensure_services

    for _key, _value in ensure_services().as_env().items():
        os.environ.setdefault(_key, _value)

from config.database.timeouts import WEB as WEB_STATEMENT_TIMEOUT  # noqa: E402
from config.database.timeouts import connection_options  # noqa: E402

from .base import *  # noqa: E402,F403
from .base import CACHES, CHANNEL_LAYERS, LOGGING, STORAGES  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
if os.environ.get("EMAIL_FILE_PATH"):  # a worker a test starts writes its mails where the test reads them
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = os.environ["EMAIL_FILE_PATH"]
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
WHITENOISE_USE_FINDERS = True
# Files looked up when asked for, not listed when the middleware is made: the test Client makes the middleware
# afresh for each client, and listing every static file took about 30 ms each time (a test makes one or more).
WHITENOISE_AUTOREFRESH = True
LOGGING["root"]["level"] = LOGGING["loggers"]["django"]["level"] = "WARNING"
LOGGING["handlers"]["console"]["formatter"] = "plain"

# Parallel test workers share one Redis: keep their groups and keys apart.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = f"test-{_worker}"
CACHES["default"]["KEY_PREFIX"] = f"test-{_worker}"
AXES_FAILURE_LIMIT = 5
# A network's lock after this many failures for any usernames (20 in production): the lock tests make as many
# failures as this says; 8 keeps it above a (member, network) pair's own lock (AXES_FAILURE_LIMIT), as 20 is.
LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "8"))

# A pytest-xdist worker runs as "python -c" (execnet), which config/database/timeouts.py cannot tell from a
# script: it is the tests' own process, so it gets the web's statement timeout, as a run on one core does.
if _worker != "main" and sys.argv[:1] == ["-c"] and not os.environ.get("DATABASE_STATEMENT_TIMEOUT"):
    DATABASE_STATEMENT_TIMEOUT = WEB_STATEMENT_TIMEOUT
    DATABASES["default"]["OPTIONS"]["options"] = connection_options(WEB_STATEMENT_TIMEOUT)  # noqa: F405

# Each test run gets its own database, so two runs at once (two terminals, CI beside a
# developer) never drop each other's; pytest-xdist adds its worker suffix to this name.
DATABASES["default"]["TEST"] = {"NAME": f"test_club_{os.getpid()}"}  # noqa: F405

# The tests connect as the application role (DATABASE_URL); the test database is created and
# migrated as the owner (DATABASE_OWNER_URL; tests/conftest.py), and a transactional test's flush
# runs as the owner too (tests/dbbackend), so the application role never needs TRUNCATE.
DATABASES["default"]["ENGINE"] = "tests.dbbackend"  # noqa: F405
if "owner" in DATABASES:  # noqa: F405
    DATABASES["owner"]["TEST"] = {"MIRROR": "default"}  # noqa: F405

# Tasks enqueued on commit go to a queue of this run's own (only a worker a test starts reads it), never
# to the queue of a development worker sharing the embedded Redis.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", f"test-{os.getpid()}-{_worker}")
PUSH_QUEUE = os.environ.get("PUSH_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-push")
CLUB_IMPORT_QUEUE = os.environ.get("CLUB_IMPORT_QUEUE", f"{CELERY_TASK_DEFAULT_QUEUE}-imports")

# Web Push: a VAPID key generated into .data on first use; endpoints on loopback allowed (notices/webpush.py).
VAPID_KEY_FILE = os.environ.get("VAPID_KEY_FILE") or str(BASE_DIR / ".data" / "vapid-private-key")  # noqa: F405
PUSH_ENDPOINT_ALLOW_LOOPBACK = env_bool("PUSH_ENDPOINT_ALLOW_LOOPBACK", True)  # noqa: F405
PRACTICE_PAUSE_SECONDS = float(os.environ.get("PRACTICE_PAUSE_SECONDS", "0.1"))  # computer players act at once
