"""/healthz (liveness): the process serves; it asks neither the database nor the broker,
so that their outage never restart-loops the web pods."""

import pytest

from config.celery import app as celery_app

pytestmark = pytest.mark.django_db


def test_it_answers_200_and_asks_nothing_else(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


def test_it_answers_200_with_the_broker_unreachable(client):
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    try:
        response = client.get("/healthz")
    finally:
        celery_app.conf.broker_url = previous
    assert response.status_code == 200


def test_it_needs_no_login(client):
    assert client.get("/healthz").status_code == 200
