"""A WSGI app that answers the scheme gunicorn settled on (test_gunicorn.py)."""

from collections.abc import Callable, Iterable
from typing import Any


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(environ["wsgi.url_scheme"]).encode()]
