"""The product's own 404, 403 and 500 pages: no debug page, and words that say what to do."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("as_owner", "path", "says"),
    [
        (True, "/snapshots/99999/", "your snapshots"),
        # A revoked share link opened by an outsider: no debug page listing every URL.
        (False, "/s/no-such-token/", "share link its owner revoked"),
    ],
)
def test_it_answers_a_missing_page_with_the_product_404(
    client, owner, settings, as_owner, path, says
):
    settings.DEBUG = False
    if as_owner:
        client.force_login(owner)
    response = client.get(path)
    assert response.status_code == 404
    body = response.content.decode()
    assert 'id="not-found"' in body and says in body
    assert "URLconf" not in body and "Traceback" not in body


@pytest.mark.urls("tests.config.urls_boom")
def test_a_failing_page_shows_the_product_500_page(owner_client, settings):
    settings.DEBUG = False
    owner_client.raise_request_exception = False
    response = owner_client.get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    assert 'id="server-error"' in body
    assert "Try again" in body
    assert "RuntimeError" not in body and "a bug" not in body


def test_an_unknown_host_gets_the_product_400(client, settings):
    settings.DEBUG = False
    response = client.get("/accounts/login/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="bad-request"' in body and "ALLOWED_HOSTS" in body
