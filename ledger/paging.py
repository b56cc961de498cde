"""Keyset pages, newest first: rows below a cursor, ordered by one increasing integer key (a posting's
seq or id, a hand's number, a table's id). No OFFSET, so a page costs the same however deep it is,
and rows added meanwhile never shift a page onto lines already seen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def keyset_page(qs: QuerySet[M, M], *, key: str, before: int | None, size: int) -> tuple[list[M], int | None]:
    """The ``size`` rows of ``qs`` with ``key`` below ``before`` (all when None), highest first, and the
    cursor of the next (older) page: the last row's key, or None when no row is left after this page."""
    if before is not None:
        qs = qs.filter(**{f"{key}__lt": before})
    rows = list(qs.order_by(f"-{key}")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    cursor: Any = getattr(rows[-1], key) if more and rows else None
    return rows, cursor


def keyset_rows(qs: QuerySet[M, M], *, key: str, chunk: int) -> Iterator[M]:
    """Every row of ``qs``, highest ``key`` first, fetched a page of ``chunk`` at a time: memory stays
    flat however many rows, and no database cursor is held between pages."""
    before: int | None = None
    while True:
        rows, before = keyset_page(qs, key=key, before=before, size=chunk)
        yield from rows
        if before is None:
            return
