"""PostgreSQL plans with a page read out of order costing about what the next page costs (``random_page_cost``
1.1, not its disk's default of 4): the database is held in memory (the embedded server) or on SSD (production),
and at 4 the planner takes an index's pages for four times dearer than they are (docs/live.md "Machinery";
bench/db_statements.py --page-costs shows the plans it changes)."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.db import connection

from config.embedded import RANDOM_PAGE_COST

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_embedded_and_the_production_server_plan_with_the_same_page_cost(db) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert cursor.fetchone()[0] == RANDOM_PAGE_COST == "1.1"
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert f"random_page_cost={RANDOM_PAGE_COST}" in compose["services"]["postgres"]["command"]
