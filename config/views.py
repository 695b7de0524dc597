"""The project's own page: the home page, one click from a first what-if."""

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, HttpResponseServerError
from django.template import loader
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.utils.cache import patch_cache_control

from clusters.selectors import snapshot_list
from connected.in_cluster import in_cluster


def home(request: HttpRequest) -> TemplateResponse:
    recent = snapshot_list(user=request.user).order_by("-created")[:5]
    # Where the app runs, for signed-in users only (every page but a few asks for a login).
    here = in_cluster() if request.user.is_authenticated else None
    return TemplateResponse(request, "home.html", {"recent_snapshots": recent, "in_cluster": here})


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for whatever the page links: the static icon
    (its URL carries the file's hash in production, so the redirect is not permanent)."""
    response = HttpResponseRedirect(static("favicon.svg"))
    patch_cache_control(response, public=True, max_age=86400)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page, with the reference under which the log keeps what happened. Rendered
    without a request context: nothing here may need the database or the user."""
    from operations.middleware import incident_of

    html = loader.get_template("500.html").render({"reference": incident_of(request)})
    return HttpResponseServerError(html)
