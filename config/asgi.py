"""ASGI entry point: HTTP through Django, websockets through Channels (served by uvicorn)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # development: scripts/dev.py
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from kernel.metrics import SocketGauge  # noqa: E402

from .routing import websocket_urlpatterns  # noqa: E402
from .security import SocketOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SocketGauge(SocketOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))),
    }
)

# Everything loaded at start-up (Django, the apps, the URL map and its views) is set aside from the
# garbage collector's full passes, which would otherwise walk it again and again while the server runs,
# each time stalling every socket of the process (about 50 ms for the 136,000 objects it holds here).
get_resolver().url_patterns  # noqa: B018 - loads the views now, before the freeze
gc.freeze()
# The young generation is collected after 20,000 new objects, not Python's 700: at 700 it ran many times
# for each version's areas, each time walking the dicts and tuples still in use mid-render and moving them
# on to the older generations, whose passes are longer. Nearly all of them are freed by their reference
# count before 20,000. Under load (bench/load.py, the web process sampled by perf) the collector's share
# of the process's CPU fell from about 5.3% to 1.3%.
GC_THRESHOLDS = (20_000, 20, 50)
gc.set_threshold(*GC_THRESHOLDS)
