"""The project's own page: the home page, one click from a first what-if."""

from django.http import HttpRequest
from django.template.response import TemplateResponse

from clusters.selectors import snapshot_list


def home(request: HttpRequest) -> TemplateResponse:
    recent = snapshot_list(user=request.user).order_by("-created")[:5]
    return TemplateResponse(request, "home.html", {"recent_snapshots": recent})
