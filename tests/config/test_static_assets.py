from pathlib import Path

import django_htmx
from django.template import Context, Template

HTMX_VERSION = "2.0.10"


def test_the_vendored_htmx_is_the_pinned_version():
    asset = Path(django_htmx.__file__).parent / "static" / "django_htmx" / "htmx-2.min.js"
    assert f'version:"{HTMX_VERSION}"' in asset.read_text()


def test_pages_load_htmx_from_static_not_a_cdn():
    html = Template("{% load django_htmx %}{% htmx_script %}").render(Context({}))
    assert "/static/django_htmx/htmx-2.min.js" in html
    assert "http" not in html


def test_the_swagger_and_redoc_assets_are_the_pinned_sidecar():
    from importlib.metadata import version

    lock = (Path(__file__).resolve().parents[2] / "requirements.lock").read_text()
    assert f"drf-spectacular-sidecar=={version('drf-spectacular-sidecar')}" in lock


def test_no_page_or_asset_of_ours_loads_anything_from_another_host():
    import re

    root = Path(__file__).resolve().parents[2]
    external = re.compile(r"""(src|href|url)\s*[=(]\s*["']?(https?:)?//""", re.I)
    found = [
        str(f.relative_to(root))
        for folder in ("templates", "static")
        for f in (root / folder).rglob("*")
        if f.is_file() and f.suffix in (".html", ".css", ".js") and external.search(f.read_text())
    ]
    assert found == []


def test_the_favicon_is_a_static_file_linked_from_every_page_and_at_favicon_ico(client, db):
    """/favicon.ico (asked for by browsers whatever a page links) leads to the static icon,
    without a login; every page links the same icon."""
    import xml.etree.ElementTree as ET

    from django.contrib.staticfiles import finders

    path = finders.find("favicon.svg")
    assert path is not None
    svg = ET.parse(path).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 32 32"
    assert Path(path).stat().st_size < 2048

    r = client.get("/favicon.ico")
    assert r.status_code == 302
    assert r["Location"] == "/static/favicon.svg"
    assert "max-age=86400" in r["Cache-Control"]

    login = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in login
