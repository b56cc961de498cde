"""Notices: what a member is told when a table waits for them, and how (email, Web Push, the daily digest),
with the member's settings pages. An app above games: games never imports it and tells it what is due
through games/signals.py (docs/architecture.md "Notices")."""
