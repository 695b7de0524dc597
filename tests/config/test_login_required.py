import pytest

pytestmark = pytest.mark.django_db


def test_it_sends_anonymous_visitors_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/")


def test_it_shows_the_login_page(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b'name="username"' in response.content


def test_it_logs_in_and_shows_the_home_page(client, owner):
    from tests.conftest import PASSWORD

    response = client.post("/accounts/login/", {"username": "owner", "password": PASSWORD})
    assert response.status_code == 302
    home = client.get("/")
    assert home.status_code == 200
    assert b"What would kube-scheduler do" in home.content
    assert b"owner" in home.content


def test_it_rejects_a_wrong_password(client, owner):
    response = client.post("/accounts/login/", {"username": "owner", "password": "nope"})
    assert response.status_code == 200
    assert b"Please try again" in response.content


def test_it_logs_out_with_a_post(owner_client):
    response = owner_client.post("/accounts/logout/")
    assert response.status_code == 302
    assert owner_client.get("/").status_code == 302


def test_the_api_answers_anonymous_calls_with_401(client):
    response = client.get("/api/schema/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


def test_the_api_docs_send_anonymous_visitors_to_the_login_page(client):
    response = client.get("/api/docs/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/api/docs/"


def test_the_api_docs_load_their_assets_from_the_app(owner_client):
    body = owner_client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in body
    assert "cdn" not in body.lower() and "https://" not in body
