"""Development profile: debug on, console email, readable logs."""

import os

os.environ.setdefault("LOG_FORMAT", "plain")

from .base import *  # noqa: E402,F403
from .base import LOGGING, STORAGES, env_bool  # noqa: E402

DEBUG = env_bool("DEBUG", True)
LOGGING["handlers"]["console"]["formatter"] = os.environ.get("LOG_FORMAT", "plain")
# Serve static files straight from the app folders: no collectstatic in development.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}

# Web Push: a VAPID key generated into .data on first use; endpoints on loopback allowed (notices/webpush.py).
VAPID_KEY_FILE = os.environ.get("VAPID_KEY_FILE") or str(BASE_DIR / ".data" / "vapid-private-key")  # noqa: F405
PUSH_ENDPOINT_ALLOW_LOOPBACK = env_bool("PUSH_ENDPOINT_ALLOW_LOOPBACK", True)  # noqa: F405
