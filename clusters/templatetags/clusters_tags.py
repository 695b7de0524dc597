"""Formatting of Kubernetes quantities and ages, as kubectl prints them."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django import template
from django.http import QueryDict
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from scheduling.engine.quantity import format_quantity

register = template.Library()

# A part of a name this long or shorter is never broken inside (an IP-like host part,
# "ReplicaSet/"); a longer one may break anywhere rather than widen its column.
_WHOLE_PART = 24
_AFTER_DOT_SLASH_OR_SPACE = re.compile(r"(?<=[./ ])")


def human_duration(seconds: float) -> str:
    """apimachinery's duration.HumanDuration: 45s, 5m30s, 3h, 2d4h, 1y30d."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rest = s % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


@register.filter
def k8s_age(created: datetime | None, taken_at: datetime | None = None) -> str:
    """kubectl's AGE, as it was when the snapshot was taken (``taken_at``), not today:
    a dump taken months ago shows the ages kubectl showed then."""
    if created is None:
        return "<unknown>"
    return human_duration(((taken_at or timezone.now()) - created).total_seconds())


@register.filter
def cpu(millicores: Any) -> str:
    """Millicores as kubectl writes them: 250m, 2, 15500m."""
    return format_quantity(_amount(millicores), "cpu")


@register.filter
def memory(value: Any) -> str:
    """Bytes with a binary suffix: 512Mi, 1.5Gi."""
    return format_quantity(_amount(value), "memory")


@register.filter
def quantity(value: Any, resource: str) -> str:
    """A resource amount in the unit its resource uses."""
    return format_quantity(_amount(value), resource)


def _amount(value: Any) -> Any:
    """A template's missing value ("" from |default or an absent key) is no amount."""
    return None if value == "" else value


@register.filter
def get(mapping: Any, key: str) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


@register.filter
def percent(part: Any, whole: Any) -> int:
    try:
        return round(100 * int(part) / int(whole)) if int(whole) else 0
    except (TypeError, ValueError):
        return 0


@register.filter
def query_pairs(query: str) -> list[tuple[str, str]]:
    """A query string's key/value pairs, for hidden inputs that carry it through a form."""
    return [(key, str(value)) for key, value in QueryDict(query).items()]


@register.simple_tag
def pods_url(query: Any, **override: str) -> str:
    """The pods page's query string with some values replaced, the rest kept (page reset)."""
    params = query.params(**override).urlencode()
    return f"?{params}" if params else "?"


@register.filter
def name_breaks(name: Any) -> SafeString:
    """A node, owner or app name that wraps after its dots, slashes and spaces, not
    inside a part: ip-10-0-195-177.ec2.internal reads "ip-10-0-195-177." then
    "ec2.internal", never "ip-10-0-195-" then "177.ec2.inter" then "nal"; "Deployment
    shop/web" may wrap after its kind. Copied, it is the same text."""
    parts = _AFTER_DOT_SLASH_OR_SPACE.split("" if name is None else str(name))
    return mark_safe(
        "<wbr>".join(
            f'<span class="nw">{escape(p)}</span>' if len(p) <= _WHOLE_PART else escape(p)
            for p in parts
            if p
        )
    )
