"""Settings shared by every profile. Everything that differs between machines
comes from the environment (12-factor); see README.md for the variables."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
import django_stubs_ext

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
    "axes",
    "accounts",
    "games",
    "ledger",
]

MIDDLEWARE = [
    "config.health.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
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
            ],
        },
    },
]

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
    if DATABASE_URL
    else {"ENGINE": "django.db.backends.postgresql", "NAME": "postgres"},
}
# Two roles (README, "The two database roles"): DATABASE_URL is the application role, which may
# not alter, truncate or rewrite the books; DATABASE_OWNER_URL, when set, is the role that owns the
# tables and runs `manage.py migrate --database owner`, after which ledger/roles.py grants the
# application role its rights.
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "")
DATABASE_APP_ROLE = str(DATABASES["default"].get("USER") or "")
if DATABASE_OWNER_URL:
    DATABASES["owner"] = dj_database_url.parse(DATABASE_OWNER_URL)

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

# Failed logins are throttled per username and address (django-axes).
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/locked_out.html"

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

# Channels: the pub/sub layer (DESIGN.md: about half the CPU per message, no
# silent drops at 100 queued messages, no idle-socket timeout).
CHANNEL_LAYER_PREFIX = os.environ.get("CHANNEL_LAYER_PREFIX", "club")
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [REDIS_URL or "redis://127.0.0.1:6379/0"], "prefix": CHANNEL_LAYER_PREFIX},
    },
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL or "redis://127.0.0.1:6379/0",
        "KEY_PREFIX": CHANNEL_LAYER_PREFIX,
    },
}

# Celery (STACK-NOTES.md: what made timeouts survive a killed worker).
CELERY_BROKER_URL = REDIS_URL or "redis://127.0.0.1:6379/0"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Longer than any deadline so a waiting eta task is not redelivered: a 7-day clock that stands
    # still 12 quiet hours a day (games/clock.py) runs out after at most 14 days.
    "visibility_timeout": 15 * 24 * 3600,
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 0,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# One queue for every task; a test run gives its worker a queue of its own.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")

# Asynchronous play (games/tasks.py, games/notices.py).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")  # absolute links in emails
TURN_SWEEP_SECONDS = float(os.environ.get("TURN_SWEEP_SECONDS", "20"))  # the beat sweep of overdue turns
TURN_NOTICE_SWEEP_SECONDS = float(os.environ.get("TURN_NOTICE_SWEEP_SECONDS", "60"))  # backstop of lost notices
TURN_NOTICE_GRACE_SECONDS = int(os.environ.get("TURN_NOTICE_GRACE_SECONDS", "120"))  # "your turn" email delay
TURN_REMINDER_BEFORE_SECONDS = int(os.environ.get("TURN_REMINDER_BEFORE_SECONDS", "3600"))
TURN_DIGEST_HOUR = int(os.environ.get("TURN_DIGEST_HOUR", "8"))  # the daily digest, member's local hour
# Multiplies every turn clock: 1 in production; the timing tests run a 10-second house clock in 2 s.
TURN_CLOCK_SCALE = float(os.environ.get("TURN_CLOCK_SCALE", "1"))
# Requests a minute per API key (games/api), counted in the shared cache.
API_RATE_PER_MINUTE = int(os.environ.get("API_RATE_PER_MINUTE", "60"))
CELERY_BEAT_SCHEDULE = {
    "sweep-overdue-turns": {"task": "games.tasks.sweep_overdue_turns", "schedule": TURN_SWEEP_SECONDS,
                            "options": {"expires": TURN_SWEEP_SECONDS}},
    "sweep-due-notices": {"task": "games.tasks.sweep_due_notices", "schedule": TURN_NOTICE_SWEEP_SECONDS,
                          "options": {"expires": TURN_NOTICE_SWEEP_SECONDS}},
    "send-daily-digests": {"task": "games.tasks.send_daily_digests", "schedule": 3600.0,
                           "options": {"expires": 3000}},
}

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
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": os.environ.get("LOG_FORMAT", "json"),
        },
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
