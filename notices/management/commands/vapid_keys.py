"""Make a VAPID key pair for Web Push (notices/webpush.py): prints VAPID_PRIVATE_KEY for the environment and the
public key browsers subscribe with. ``--write FILE``: keep the private key in FILE (mode 600) instead,
unless FILE exists (a key in use is never replaced: every browser's subscription is bound to it)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand, CommandError, CommandParser
from py_vapid import Vapid

from notices.webpush import b64url, vapid_private_key_generate


class Command(BaseCommand):
    help = "Make a VAPID key pair for Web Push."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", metavar="FILE", help="Keep the private key in FILE (refused if it exists).")

    def handle(self, *args: Any, **options: Any) -> None:
        private = vapid_private_key_generate()
        public = Vapid.from_string(private).public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        if options["write"]:
            path = Path(options["write"])
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                raise CommandError(f"{path} exists: a key in use is not replaced.") from None
            with os.fdopen(fd, "w") as handle:
                handle.write(private + "\n")
            self.stdout.write(f"Private key written to {path}.")
        else:
            self.stdout.write(f"VAPID_PRIVATE_KEY={private}")
        self.stdout.write(f"Public key (applicationServerKey): {b64url(public)}")
