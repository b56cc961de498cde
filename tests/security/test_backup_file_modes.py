"""A backup holds every deck, salt and password hash: its folder is 0700 and its files 0600 whatever the
umask, and an existing folder open to others is closed (operations/backup.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from operations.backup import backup_create


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.django_db
def test_a_backup_is_readable_by_its_own_user_only(club_setup, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)  # noqa: S103 - as an earlier version left it
    before = os.umask(0o022)
    try:
        dump = backup_create(directory=folder)
    finally:
        os.umask(before)
    assert mode(folder) == 0o700
    assert mode(dump) == 0o600
    assert mode(dump.with_suffix(".json")) == 0o600


@pytest.mark.django_db
def test_a_new_backup_folder_is_made_private(club_setup, tmp_path: Path) -> None:
    folder = tmp_path / "new" / "backups"
    dump = backup_create(directory=folder)
    assert mode(folder) == 0o700 and mode(dump) == 0o600
