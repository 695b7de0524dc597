"""Files of a refused upload, kept on disk so the next try need not pick them again.

A browser cannot refill a file input after the page reloads, so the upload
page lists what it kept (ticked) and the next POST reads them back. Each set
lives under MEDIA_ROOT/kept-uploads/<user id>/<token>/ for a day at most, and
only its owner's requests can name it.
"""

from __future__ import annotations

import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import File

from clusters.services import UploadedFile

KEEP_SECONDS = 24 * 3600
_REF = re.compile(r"^(?P<token>[0-9a-f]{32})/(?P<index>\d{1,3})$")


@dataclass(frozen=True)
class KeptFile:
    ref: str  # "<token>/<index>", what the form's checkbox sends back
    name: str
    size: int


def _user_dir(user: Any) -> Path:
    return Path(settings.MEDIA_ROOT) / "kept-uploads" / str(int(user.pk))


def _sweep(base: Path) -> None:
    """Drops sets older than KEEP_SECONDS (abandoned tries)."""
    if not base.is_dir():
        return
    cutoff = time.time() - KEEP_SECONDS
    for old in base.iterdir():
        if old.stat().st_mtime < cutoff:
            shutil.rmtree(old, ignore_errors=True)


def uploads_keep(*, user: Any, files: list[UploadedFile]) -> list[KeptFile]:
    """Writes the files of a refused try to disk; what the page lists as kept."""
    files = [f for f in files if f.size]
    if not files:
        return []
    base = _user_dir(user)
    _sweep(base)
    token = uuid.uuid4().hex
    folder = base / token
    folder.mkdir(parents=True)
    kept = []
    for i, f in enumerate(files):
        with (folder / f"{i}.data").open("wb") as out:
            for part in f.parts():  # one part in memory at a time
                out.write(part)
        (folder / f"{i}.name").write_text(f.name)
        kept.append(KeptFile(ref=f"{token}/{i}", name=f.name, size=f.size))
    return kept


def uploads_take(*, user: Any, refs: list[str]) -> list[UploadedFile]:
    """The kept files the form sent back, read from disk; refs not of this user are ignored."""
    base = _user_dir(user)
    out = []
    for ref in refs:
        m = _REF.match(ref)
        if m is None:
            continue
        folder = base / m["token"]
        data, name = folder / f"{m['index']}.data", folder / f"{m['index']}.name"
        if data.is_file() and name.is_file():
            # Opened, not read: a large kept file streams to storage like a new upload.
            stream = File(data.open("rb"), name=data.name)
            out.append(UploadedFile(name=name.read_text(), data=b"", stream=stream))
    return out


def uploads_forget(*, user: Any, refs: list[str]) -> None:
    """Deletes the sets these refs point into (the upload went through)."""
    base = _user_dir(user)
    for ref in refs:
        m = _REF.match(ref)
        if m is not None:
            shutil.rmtree(base / m["token"], ignore_errors=True)
