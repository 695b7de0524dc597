"""The project's own page: the home page that leads to snapshots and analyses."""

from django.http import HttpRequest
from django.template.response import TemplateResponse


def home(request: HttpRequest) -> TemplateResponse:
    return TemplateResponse(request, "home.html")
