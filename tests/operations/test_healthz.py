import pytest

from config.celery import app as celery_app

pytestmark = pytest.mark.django_db


def test_it_reports_database_and_broker_reachable(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True


def test_it_answers_503_when_the_broker_is_unreachable(client):
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        response = client.get("/healthz")
    finally:
        celery_app.conf.broker_url = previous
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["broker"]["ok"] is False
    assert body["database"]["ok"] is True


def test_it_needs_no_login(client):
    assert client.get("/healthz").status_code in (200, 503)
