"""The result page's lookup of what the volume plugins said of one node or group."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def volumes_of(by_key: dict[Any, Any] | None, key: Any) -> Any:
    """``node_volumes|volumes_of:row.node``: the typed record of that node (or group
    index), None where no volume plugin rejected it."""
    return (by_key or {}).get(key)
