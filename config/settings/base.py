"""Settings shared by every profile. Everything that differs between machines
comes from the environment (12-factor); see docs/settings-and-security.md for the variables."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import dj_database_url
import django_stubs_ext
import jinja2
from celery.schedules import crontab
from csp.constants import NONE, SELF

from config.database.timeouts import COMMAND as COMMAND_STATEMENT_TIMEOUT
from config.database.timeouts import connection_options, statement_timeout

# Lets `forms.ModelForm[Club]` and other generic Django classes be subscripted at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me-in-production-0123456789")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    "axes",
    "accounts",
    "games",
    "notices",
    "ledger",
    "clubhouse",
    "clubdata",
    "operations",
]

MIDDLEWARE = [
    "config.health.HealthCheckMiddleware",
    "operations.scrape.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.security.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a lockout into a response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.presentation.context.waiting_tables",
            ],
        },
    },
    {
        # The live table area, rendered for every member on every version (games/presentation/jinja.py).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.presentation.jinja.environment", "undefined": jinja2.ChainableUndefined},
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL)
    if DATABASE_URL
    else {"ENGINE": "django.db.backends.postgresql", "NAME": "postgres"},
}
# One bounded psycopg pool per process (web and sockets, worker, beat) instead of persistent connections,
# which under ASGI pile up one per request thread until PostgreSQL refuses clients. Each process holds
# at most DB_POOL_MAX_SIZE connections; a request waits up to DB_POOL_TIMEOUT seconds for one.
DB_POOL_MIN_SIZE = int(os.environ.get("DB_POOL_MIN_SIZE", "1"))
DB_POOL_MAX_SIZE = int(os.environ.get("DB_POOL_MAX_SIZE", "10"))
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "10"))
DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django's pool requires it
# The pool checks a connection before handing it out, so a restarted PostgreSQL costs no failed request;
# the project's backend makes that check without a round trip while the connection is quiet
# (config/database/base.py).
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"].get("ENGINE") == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "config.database"
# Parameters bound by the server, so that psycopg prepares a statement a connection has run five times
# and PostgreSQL plans it once: a player's action costs PostgreSQL about a third less CPU (1.1-1.9 ms
# against 1.8-3.0 ms in process, bench/RESULTS.md). After a migration that changes a table's
# columns, restart the processes (a prepared statement keeps its old result's shape).
DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = True
DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
    "min_size": min(DB_POOL_MIN_SIZE, DB_POOL_MAX_SIZE),
    "max_size": DB_POOL_MAX_SIZE,
    "timeout": DB_POOL_TIMEOUT,
}
# Two roles (docs/settings-and-security.md, "The two database roles"): DATABASE_URL is the application role, which may
# not alter, truncate or rewrite the books; DATABASE_OWNER_URL, when set, is the role that owns the
# tables and runs `manage.py migrate --database owner`, after which ledger/roles.py grants the
# application role its rights.
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "")
DATABASE_APP_ROLE = str(DATABASES["default"].get("USER") or "")
if DATABASE_OWNER_URL:
    DATABASES["owner"] = dj_database_url.parse(DATABASE_OWNER_URL)
# Every statement ends within a stated time (config/database/timeouts.py): 5 s in the web processes,
# 60 s in Celery, 10 min for manage.py (migrations as the owner, the operator's commands).
DATABASE_STATEMENT_TIMEOUT = statement_timeout(sys.argv, os.environ)
DATABASES["default"]["OPTIONS"]["options"] = connection_options(DATABASE_STATEMENT_TIMEOUT)
if "owner" in DATABASES:
    DATABASES["owner"].setdefault("OPTIONS", {})["options"] = connection_options(
        os.environ.get("DATABASE_STATEMENT_TIMEOUT", "").strip() or COMMAND_STATEMENT_TIMEOUT
    )

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Failed logins (accounts/throttle.py). Three tiers over the failures of the last AXES_COOLOFF_TIME, an
# address counted by its network (IPv4 /32, IPv6 /64):
# - django-axes locks a (username, network) pair after AXES_FAILURE_LIMIT failures;
# - a network is locked after LOGIN_ADDRESS_FAILURE_LIMIT failures, whatever the usernames;
# - a username with LOGIN_SLOWDOWN_AFTER failures from anywhere takes one try per growing delay
#   (at most LOGIN_SLOWDOWN_MAX_SECONDS).
# A browser that logged in to that account before is neither held by the address lock nor slowed, so
# nobody can lock a member out for good, nor everyone behind a shared address.
# The address is the connecting peer's as the web server computed it (REMOTE_ADDR); the server
# believes X-Forwarded-For only from the proxies in FORWARDED_ALLOW_IPS (config/serve.py).
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_address"
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)  # should django-ipware ever be installed
LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "20"))
LOGIN_SLOWDOWN_AFTER = int(os.environ.get("LOGIN_SLOWDOWN_AFTER", "10"))
LOGIN_SLOWDOWN_MAX_SECONDS = int(os.environ.get("LOGIN_SLOWDOWN_MAX_SECONDS", "60"))
LOGIN_DEVICE_COOKIE_DAYS = 180
# A browser that logged in to an account before, or opened a one-time log-in link mailed to it, is held only by
# its own failures there (accounts/throttle.py): django-axes neither locks nor records it.
AXES_WHITELIST_CALLABLE = "accounts.throttle.axes_spares"
LOGIN_LINK_SECONDS = int(os.environ.get("LOGIN_LINK_SECONDS", "1800"))  # a mailed link is good this long, once
LOGIN_LINK_SPARES_SECONDS = int(os.environ.get("LOGIN_LINK_SPARES_SECONDS", "3600"))  # and spares its browser this long
LOGIN_LINKS_PER_HOUR = int(os.environ.get("LOGIN_LINKS_PER_HOUR", "3"))  # mails an account gets

# Mails a stranger can trigger: password resets (per address and per client address) and
# invitations (per organiser), counted in the cache over an hour.
PASSWORD_RESET_MAILS_PER_ADDRESS = int(os.environ.get("PASSWORD_RESET_MAILS_PER_ADDRESS", "3"))
PASSWORD_RESET_REQUESTS_PER_CLIENT = int(os.environ.get("PASSWORD_RESET_REQUESTS_PER_CLIENT", "10"))
INVITATION_MAILS_PER_ORGANISER = int(os.environ.get("INVITATION_MAILS_PER_ORGANISER", "30"))
RATE_LIMIT_PREFIX = "limit"  # cache keys of those counters

# Browser hardening on every profile, so the browser tests run under the production policy.
# Scripts and styles come only from our own static files: no inline <script>, <style> or style="",
# no eval; sockets and fetches go back to this site only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
SECURE_REFERRER_POLICY = "same-origin"  # links in our pages never carry a path (or a token) to another site
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()"
)

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Email: console in development, SMTP from the environment in production.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "club@localhost")

# Channels: the pub/sub layer (docs/design.md: about half the CPU per message, no
# silent drops at 100 queued messages, no idle-socket timeout).
CHANNEL_LAYER_PREFIX = os.environ.get("CHANNEL_LAYER_PREFIX", "club")
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "games.live.layer.LiveChannelLayer",  # channels_redis pub/sub; own sockets served in-process
        "CONFIG": {"hosts": [REDIS_URL or "redis://127.0.0.1:6379/0"], "prefix": CHANNEL_LAYER_PREFIX},
    },
}

CACHES = {
    "default": {
        "BACKEND": "kernel.cache.KeptClientRedisCache",  # Django's, its client kept
        "LOCATION": REDIS_URL or "redis://127.0.0.1:6379/0",
        "KEY_PREFIX": CHANNEL_LAYER_PREFIX,
    },
}

# Celery: acks late, requeue on a lost worker, one task prefetched: a killed worker's timeouts come back quickly.
CELERY_BROKER_URL = REDIS_URL or "redis://127.0.0.1:6379/0"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Longer than any deadline so a waiting eta task is not redelivered: a 7-day clock that stands
    # still 12 quiet hours a day (games/timing/turn_clock.py) runs out after at most 14 days.
    "visibility_timeout": 15 * 24 * 3600,
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 0,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# One queue for every task; a test run gives its worker a queue of its own.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")

# Asynchronous play (games/tasks.py, notices/services/turns.py).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")  # absolute links in emails
TURN_SWEEP_SECONDS = float(os.environ.get("TURN_SWEEP_SECONDS", "20"))  # the beat sweep of overdue turns
TURN_NOTICE_SWEEP_SECONDS = float(os.environ.get("TURN_NOTICE_SWEEP_SECONDS", "60"))  # backstop of lost notices
TURN_NOTICE_GRACE_SECONDS = int(os.environ.get("TURN_NOTICE_GRACE_SECONDS", "120"))  # "your turn" email delay
# A computer player at a practice table waits about this long before it acts, as a person would (0 in tests).
PRACTICE_PAUSE_SECONDS = float(os.environ.get("PRACTICE_PAUSE_SECONDS", "1.5"))
TURN_REMINDER_BEFORE_SECONDS = int(os.environ.get("TURN_REMINDER_BEFORE_SECONDS", "3600"))
TURN_DIGEST_HOUR = int(os.environ.get("TURN_DIGEST_HOUR", "8"))  # the daily digest, member's local hour
# A table or lobby socket keeps its member present this long after it opened or last pinged (pages ping
# every 25 s); no turn email or push while present (games/live/presence.py).
PRESENCE_TTL_SECONDS = float(os.environ.get("PRESENCE_TTL_SECONDS", "70"))
# Web Push (notices/webpush.py). The private key: base64url of the 32-byte P-256 secret (`manage.py vapid_keys`).
# Without one push is off, unless VAPID_KEY_FILE names a file to keep a generated one in (development, tests).
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_KEY_FILE = os.environ.get("VAPID_KEY_FILE", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", f"mailto:{DEFAULT_FROM_EMAIL}")  # who the push services may contact
PUSH_TTL_SECONDS = int(os.environ.get("PUSH_TTL_SECONDS", "3600"))  # how long a push service keeps an undelivered one
# Pushes go out from a task of their own queue, read by a worker of its own (docker-compose.yml "push"), never
# from the alarm or a sweep: a push service that accepts and never answers holds up pushes, never a clock.
# Each notice goes to all of a member's browsers at once and is over within PUSH_DEADLINE_SECONDS (connect,
# TLS, request, answer); a notice queued longer than PUSH_QUEUED_MAX_SECONDS is dropped.
PUSH_QUEUE = os.environ.get("PUSH_QUEUE", "push")
PUSH_CONNECT_TIMEOUT_SECONDS = float(os.environ.get("PUSH_CONNECT_TIMEOUT_SECONDS", "3"))
PUSH_DEADLINE_SECONDS = float(os.environ.get("PUSH_DEADLINE_SECONDS", "5"))
PUSH_QUEUED_MAX_SECONDS = int(os.environ.get("PUSH_QUEUED_MAX_SECONDS", "900"))
PUSH_SUBSCRIPTIONS_PER_MEMBER = 10  # browsers per member; the oldest goes
# Push endpoints must be https on a public address; development and tests may use loopback (a local receiver).
PUSH_ENDPOINT_ALLOW_LOOPBACK = env_bool("PUSH_ENDPOINT_ALLOW_LOOPBACK", False)
# Multiplies every turn clock: 1 in production; the timing tests run a 10-second house clock in 2 s.
TURN_CLOCK_SCALE = float(os.environ.get("TURN_CLOCK_SCALE", "1"))
# Beat rewrites this file each time it hands a task to Redis; `manage.py beat_health` fails once it is older
# than BEAT_HEARTBEAT_MAX_AGE seconds (the turn sweep alone goes out every TURN_SWEEP_SECONDS).
CELERY_BEAT_SCHEDULER = "kernel.beat:HeartbeatScheduler"
BEAT_HEARTBEAT_FILE = os.environ.get("BEAT_HEARTBEAT_FILE", str(BASE_DIR / ".data" / "beat-heartbeat"))
BEAT_HEARTBEAT_MAX_AGE = float(os.environ.get("BEAT_HEARTBEAT_MAX_AGE", str(max(90.0, 4 * TURN_SWEEP_SECONDS))))
# Requests a minute per API key (games/api), counted in the shared cache.
API_RATE_PER_MINUTE = int(os.environ.get("API_RATE_PER_MINUTE", "60"))
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-turns": {
        "task": "games.tasks.sweep_overdue_turns",
        "schedule": TURN_SWEEP_SECONDS,
        "options": {"expires": TURN_SWEEP_SECONDS},
    },
    "sweep-due-notices": {
        "task": "games.tasks.sweep_due_notices",
        "schedule": TURN_NOTICE_SWEEP_SECONDS,
        "options": {"expires": TURN_NOTICE_SWEEP_SECONDS},
    },
    "send-daily-digests": {"task": "games.tasks.send_daily_digests", "schedule": 3600.0, "options": {"expires": 3000}},
}

# Club imports (clubdata/jobs.py): an organiser's upload is imported by a task on a queue of its own, which the
# clocks' worker also reads (docker-compose.yml "worker", scripts/dev.py run); at most CLUB_IMPORTS_AT_ONCE run
# at a time, so the worker's other threads stay free for clocks. One import that runs past
# CLUB_IMPORT_BUDGET_SECONDS stops, is rolled back and says why.
CLUB_IMPORT_QUEUE = os.environ.get("CLUB_IMPORT_QUEUE", "imports")
CLUB_IMPORT_BUDGET_SECONDS = float(os.environ.get("CLUB_IMPORT_BUDGET_SECONDS", "600"))
CLUB_IMPORTS_AT_ONCE = int(os.environ.get("CLUB_IMPORTS_AT_ONCE", "2"))

# Backups (operations/backup.py): the nightly one at BACKUP_HOUR UTC keeps the newest BACKUP_KEEP.
BACKUP_DIR = os.environ.get("BACKUP_DIR", str(BASE_DIR / ".data" / "backups"))
BACKUP_KEEP = int(os.environ.get("BACKUP_KEEP", "14"))
BACKUP_HOUR = int(os.environ.get("BACKUP_HOUR", "3"))
PG_BIN_DIR = os.environ.get("PG_BIN_DIR", "")  # pg_dump / pg_restore; default: the pgserver package's
# Production runs the backup on a worker of its own (docker-compose.yml "backup": the owner role, the volume).
BACKUP_QUEUE = os.environ.get("BACKUP_QUEUE", "")
if BACKUP_QUEUE:
    CELERY_TASK_ROUTES = {"operations.tasks.nightly_backup": {"queue": BACKUP_QUEUE}}
CELERY_BEAT_SCHEDULE["nightly-backup"] = {
    "task": "operations.tasks.nightly_backup",
    "schedule": crontab(hour=BACKUP_HOUR, minute=0),
    "options": {"expires": 3 * 3600},
}

# Metrics (operations/scrape.py): GET /metrics with "Authorization: Bearer METRICS_TOKEN" or from an
# address of METRICS_ALLOWED_IPS (addresses or networks; loopback by default). Never public.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", "127.0.0.1,::1")
LEDGER_VERIFY_SECONDS = float(os.environ.get("LEDGER_VERIFY_SECONDS", "3600"))  # for the club_ledger_ok metric
CELERY_BEAT_SCHEDULE["verify-books"] = {
    "task": "operations.tasks.verify_books",
    "schedule": LEDGER_VERIFY_SECONDS,
    "options": {"expires": LEDGER_VERIFY_SECONDS},
}

# /healthz says which of PostgreSQL and Redis failed only to these host names (and loopback, always): the
# proxy's own (docker-compose.yml's service "proxy"). Everyone else reads a bare 200 or 503 (config/health.py).
HEALTH_DETAIL_HOSTS = env_list("HEALTH_DETAIL_HOSTS", "proxy")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "filters": {"redact_secrets": {"()": "config.security.RedactSecretsFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": os.environ.get("LOG_FORMAT", "json"),
            "filters": ["redact_secrets"],
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # Replaces Django's own handlers (a plain stderr one while DEBUG): every line passes the token filter.
        "django": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO"), "propagate": False},
        "django.db.backends": {"level": "WARNING"},
        # uvicorn's access log goes through our handler (and its token filter) once the app has loaded.
        "uvicorn.access": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
