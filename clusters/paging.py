"""Pagination that does not count 150,000 rows per request.

The snapshot stores how many nodes and pods it has; an unfiltered page uses
that number instead of SELECT COUNT(*).
"""

from __future__ import annotations

from typing import Any

from django.core.paginator import InvalidPage, Page, Paginator
from django.http import HttpRequest


class KnownCountPaginator(Paginator[Any]):
    def __init__(self, object_list: Any, per_page: int, *, count: int | None = None) -> None:
        super().__init__(object_list, per_page)
        if count is not None:
            self.__dict__["count"] = count  # fills the cached property


def paginate(
    request: HttpRequest, queryset: Any, *, per_page: int = 50, count: int | None = None
) -> Page[Any]:
    paginator = KnownCountPaginator(queryset, per_page, count=count)
    try:
        return paginator.page(request.GET.get("page") or 1)
    except InvalidPage:
        return paginator.page(paginator.num_pages if request.GET.get("page") else 1)


def query_without_page(request: HttpRequest) -> str:
    """The current query string minus ``page``, for pagination links."""
    params = request.GET.copy()
    params.pop("page", None)
    for key in [k for k, v in params.items() if v == ""]:
        params.pop(key)
    return params.urlencode()
