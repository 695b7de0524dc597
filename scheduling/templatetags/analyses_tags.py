"""Small formatting helpers of the analysis pages."""

from __future__ import annotations

import json
import re
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# Where a plugin's name may break: before each word of its CamelCase.
_WORD_START = re.compile(r"(?<=[a-z])(?=[A-Z])")


@register.filter
def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False)


@register.filter
def plugin_name(name: Any) -> SafeString:
    """A plugin's name as kube-scheduler spells it, breakable between its words in a
    narrow column: NodeResourcesBalancedAllocation reads "NodeResources" then
    "BalancedAllocation" when it must, never in capitals run together. Copied, it is
    the same text."""
    words = _WORD_START.split("" if name is None else str(name))
    return mark_safe("<wbr>".join(escape(w) for w in words))
