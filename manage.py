#!/usr/bin/env python
import os
import sys


def use_embedded_services() -> None:
    """Without DATABASE_URL and REDIS_URL, point at this checkout's embedded PostgreSQL and Redis (reused
    when the site runs, started otherwise), as `scripts/dev.py run` does. Never under production settings."""
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return
    if os.environ["DJANGO_SETTINGS_MODULE"].endswith(".production"):
        return
    from config.embedded import ensure_services

    for key, value in ensure_services().as_env().items():
        os.environ.setdefault(key, value)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")  # development: scripts/dev.py
    use_embedded_services()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
