"""What the ledger asks of the apps above it, which connect in their ``AppConfig.ready``."""

from __future__ import annotations

from django.dispatch import Signal

#: The organisers' Rulings page is drawn: each receiver, called with ``club``, returns a dict of more
#: forms to show on it (games: the "void a hand" form, which lists the club's hands).
rulings_page_forms = Signal()
