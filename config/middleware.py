"""Every page and API call needs a login, except the few that are public by design."""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

# Prefixes that answer without a session: the login page itself, the health
# check, static files, share links (they carry their own token) and the API,
# which authenticates (session or token) and answers 401/403 on its own.
PUBLIC_PREFIXES = ("/accounts/login/", "/healthz", "/static/", "/s/", "/api/")
# The API's docs are pages people open in a browser, not API calls: a visitor
# who is not logged in goes to the login page and back, not to a bare 403.
LOGIN_PAGES_UNDER_API = ("/api/docs/",)


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        public = request.path.startswith(PUBLIC_PREFIXES) and not request.path.startswith(
            LOGIN_PAGES_UNDER_API
        )
        if not request.user.is_authenticated and not public:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
