"""Production profile: everything from the environment, secure by default. The default of manage.py, ASGI and
Celery when DJANGO_SETTINGS_MODULE is unset; scripts/dev.py and the tests name theirs.
`manage.py check --deploy` reports nothing with this profile and a real SECRET_KEY."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("Set SECRET_KEY to a random string of at least 50 characters.")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend")

# No SECURE_PROXY_SSL_HEADER: Django would believe X-Forwarded-Proto from anyone. Uvicorn sets the
# scheme from that header only when it comes from a proxy named in FORWARDED_ALLOW_IPS (config/serve.py).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # container health checks speak plain HTTP
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
PUSH_ENDPOINT_ALLOW_LOOPBACK = False  # pushes to public push services only, whatever the environment says
