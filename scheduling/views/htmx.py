"""Requests as the pages get them, and htmx's answer that ends polling."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

STOP_POLLING = 286


class HtmxHttpRequest(HttpRequest):
    """A request as the views get it: django_htmx's HtmxMiddleware has set ``htmx``."""

    htmx: HtmxDetails
