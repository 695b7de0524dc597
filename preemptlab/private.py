"""The data folder (PREEMPTLAB_VAR_DIR) is this user's only: it holds the SQLite file
(password hashes, sessions, API tokens), the secret key, the broker's queued messages,
uploads and logs. Every process that writes there starts with keep_private()."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Files 0600, folders 0700, whoever creates them (sqlite3, Celery, Django's storage).
PRIVATE_UMASK = 0o077


def keep_private(var: Path | None = None) -> None:
    """This process and its children create private files; and what ``var`` already
    holds (made by an earlier version, or another umask) loses its group and other
    bits. Symlinks and other users' files are left alone."""
    os.umask(PRIVATE_UMASK)
    if var is None or not var.is_dir():
        return
    for path in [var, *var.rglob("*")]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid():
            continue
        if info.st_mode & 0o077:
            path.chmod(stat.S_IMODE(info.st_mode) & ~0o077)
