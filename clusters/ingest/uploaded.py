"""An uploaded file, as the views, the API, the CLI and a queued ingest hand it over."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from clusters.constants import UPLOAD_PART_BYTES
from scheduling.engine.documents import is_gzip


@dataclass
class UploadedFile:
    """One uploaded file: its bytes, or ``stream``, a Django upload (spooled to a
    temporary file by Django past FILE_UPLOAD_MAX_MEMORY_SIZE) that a queued ingest
    copies to the database in parts without ever holding it whole."""

    name: str
    data: bytes | memoryview
    stream: Any = None

    @property
    def size(self) -> int:
        return int(self.stream.size) if self.stream is not None else len(self.data)

    def read(self) -> bytes | memoryview:
        if self.stream is None:
            return self.data
        self.stream.seek(0)
        data: bytes = self.stream.read()
        return data

    def head_and_tail(self, n: int) -> tuple[bytes, bytes]:
        """The first and the last ``n`` bytes, without reading the rest."""
        if self.stream is None:
            return bytes(self.data[:n]), bytes(self.data[-n:])
        self.stream.seek(0)
        head = self.stream.read(n)
        self.stream.seek(max(0, self.size - n))
        tail = self.stream.read(n)
        self.stream.seek(0)
        return bytes(head), bytes(tail)

    def is_gzip(self) -> bool:
        return is_gzip(self.head_and_tail(2)[0])

    def parts(self) -> Iterator[bytes | memoryview]:
        if self.stream is not None:
            self.stream.seek(0)
            while chunk := self.stream.read(UPLOAD_PART_BYTES):
                yield chunk
            return
        view = memoryview(self.data)
        for start in range(0, max(len(view), 1), UPLOAD_PART_BYTES):
            yield view[start : start + UPLOAD_PART_BYTES]
