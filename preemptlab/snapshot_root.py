"""The folder `preemptlab mcp` may read snapshot files from, and the one way it reads
them: an agent names the path, so the path is the untrusted part."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class SnapshotRoot:
    """Regular files under ``folder`` (symlinks followed only while they stay inside),
    at most ``max_bytes`` each, counted as they are read: a file's stat may say 0
    (/proc) or grow while it is read."""

    folder: Path
    max_bytes: int

    @classmethod
    def at(cls, folder: str | os.PathLike[str], max_bytes: int) -> SnapshotRoot:
        return cls(Path(os.path.realpath(folder)), max_bytes)

    def resolve(self, path: str) -> Path:
        """The real path a name means, relative names from the root; refused outside."""
        real = Path(os.path.realpath(self.folder / Path(path).expanduser()))
        if os.path.commonpath([real, self.folder]) != str(self.folder):
            raise PermissionError(
                f"{path} is outside {self.folder}, the folder this server reads snapshots "
                "from: copy the file there, or start it with --root (PREEMPTLAB_MCP_ROOT)"
            )
        return real

    def read(self, path: str) -> bytes:
        real = self.resolve(path)
        # O_NONBLOCK: opening a named pipe returns at once (and is then refused) instead
        # of waiting for a writer; O_NOFOLLOW: the last step cannot have become a link
        # since resolve().
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(real, flags)
        except OSError as e:
            raise OSError(f"cannot open {path}: {e.strerror}") from None
        with os.fdopen(fd, "rb", buffering=0) as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PermissionError(f"{path} is not a regular file: only snapshot files")
            chunks: list[bytes] = []
            size = 0
            while size <= self.max_bytes and (
                chunk := f.read(min(READ_CHUNK, self.max_bytes + 1 - size))
            ):
                chunks.append(chunk)
                size += len(chunk)
        if size > self.max_bytes:
            raise ValueError(
                f"{path} is above the {self.max_bytes // 2**20} MiB this server reads "
                f"({self.max_bytes} bytes)"
            )
        return b"".join(chunks)
