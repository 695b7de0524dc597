"""The result pages' "How to avoid this" section, included where the page is assembled."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from advice.selectors import section_context
from scheduling.models import Analysis

register = template.Library()


@register.inclusion_tag("advice/_section.html", takes_context=True)
def advice_section(context: Any, analysis: Analysis, shared: bool = False) -> dict[str, Any]:
    """The section as it stands; ``shared``: on a share link's page (its URL is the page's
    own ``page_url``, /s/{token}/), read-only."""
    if shared:
        token = str(context["page_url"]).rstrip("/").rsplit("/", 1)[-1]
        url = reverse("advice:share-section", args=[token])
    else:
        url = reverse("advice:section", args=[analysis.pk])
    return section_context(analysis, shared=shared, section_url=url) | {
        "csrf_token": context.get("csrf_token"),
        "request": context.get("request"),
    }
