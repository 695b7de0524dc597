"""Where in the upload an object is: the files are read one by one, then merged into one
list for the engine, whose errors name an index in that list."""

from __future__ import annotations

from clusters.ingest.reading import FileObjects
from scheduling.engine import InvalidInput


def relocate(err: InvalidInput, parts: list[FileObjects], origins: list[int]) -> InvalidInput:
    """Name the file and the item in it, rather than the index in the merged list."""
    if err.index is not None and 0 <= err.index < len(origins):
        part = parts[origins[err.index]]
        position = part.positions[err.index - offset_of(parts, origins[err.index])]
        return _moved(err, source=part.source, index=position)
    if err.kind and err.name:
        for part in parts:
            for obj, position in zip(part.objects, part.positions, strict=True):
                meta = obj.get("metadata") or {}
                if (
                    obj.get("kind") == err.kind
                    and meta.get("name") == err.name
                    and (meta.get("namespace") or "default") == (err.namespace or "default")
                ):
                    return _moved(err, source=part.source, index=position)
    if not err.source and len(parts) == 1:
        return err.located(source=parts[0].source)
    return err


def _moved(err: InvalidInput, *, source: str, index: int) -> InvalidInput:
    """The same error, placed at an item of one uploaded file instead of the merged list."""
    return InvalidInput(
        err.message,
        source=source,
        index=index,
        kind=err.kind,
        namespace=err.namespace,
        name=err.name,
        field=err.field,
    )


def offset_of(parts: list[FileObjects], part_index: int) -> int:
    return sum(len(p.objects) for p in parts[:part_index])
