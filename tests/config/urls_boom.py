"""A URL map with one view that fails, to see the product's 500 page."""

from django.http import HttpRequest, HttpResponse

from config.urls import urlpatterns as project_urlpatterns


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


from django.urls import path  # noqa: E402

urlpatterns = [path("boom/", boom), *project_urlpatterns]
