"""Errors raised for malformed snapshots and pods."""

from __future__ import annotations


class InvalidInput(ValueError):
    """Malformed input, located as precisely as the caller knows.

    ``str(err)`` reads like
    ``snap.json: items[12] Pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity "abc"``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        index: int | None = None,
        kind: str | None = None,
        namespace: str | None = None,
        name: str | None = None,
        field: str | None = None,
    ) -> None:
        self.source = source
        self.index = index
        self.kind = kind
        self.namespace = namespace
        self.name = name
        self.field = field
        self.message = message
        super().__init__(self._render())

    def located(
        self,
        *,
        source: str | None = None,
        index: int | None = None,
        kind: str | None = None,
        namespace: str | None = None,
        name: str | None = None,
    ) -> InvalidInput:
        """A copy with the outer location filled in where still unknown."""
        return InvalidInput(
            self.message,
            source=self.source or source,
            index=self.index if self.index is not None else index,
            kind=self.kind or kind,
            namespace=self.namespace or namespace,
            name=self.name or name,
            field=self.field,
        )

    def _render(self) -> str:
        where: list[str] = []
        if self.source:
            where.append(f"{self.source}:")
        if self.index is not None:
            where.append(f"items[{self.index}]")
        if self.kind:
            obj = self.kind
            if self.name:
                obj += " " + (f"{self.namespace}/{self.name}" if self.namespace else self.name)
            where.append(obj)
        head = " ".join(where)
        if head and not head.endswith(":"):
            head += ":"
        tail = f"{self.field}: {self.message}" if self.field else self.message
        return f"{head} {tail}" if head else tail
