"""Small formatting helpers of the analysis pages."""

from __future__ import annotations

import json
from typing import Any

from django import template

from scheduling.presenters.pod import format_quantity

register = template.Library()


@register.filter
def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)


@register.filter
def quantity(value: Any, resource: str) -> str:
    return format_quantity(value, resource)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """``mapping[key]``, or None: a row's entry in a dict the view built beside a list."""
    return mapping.get(key) if isinstance(mapping, dict) else None
