"""ASGI entry point: HTTP through Django, websockets through Channels (served by uvicorn)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # development: scripts/dev.py
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from kernel.pools import collector_settle  # noqa: E402

from .routing import websocket_urlpatterns  # noqa: E402
from .security import SocketOriginValidator  # noqa: E402

# No auth middleware for websockets: a socket reads its member from its session cookie itself, on opening and at
# each full check (games/live/access.py), and keeps only the key for its life.
application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SocketOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)

# Everything loaded at start-up (Django, the apps, the URL map and its views) is set aside from the
# collector's full passes, and its young generation collected less often (kernel/pools.py).
get_resolver().url_patterns  # noqa: B018 - loads the views now, before the freeze
collector_settle()
