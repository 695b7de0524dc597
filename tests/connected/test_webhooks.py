"""Webhook receivers are outbound only: loopback refused at save (API, command, service)
unless PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS allows it, and again at send; link-local,
unspecified and private addresses judged through a stubbed resolver (nothing is sent to
them); a failure is kept as its class, the receiver's host shown to staff only, and the
worker's log holds no URL path."""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.db import close_old_connections
from rest_framework.test import APIClient

from config.celery import app
from connected.history.models import AlertDelivery
from connected.history.tasks import alert_send
from connected.models import Cluster
from connected.services import ClusterInvalid, cluster_create
from connected.webhooks import ReceiverRefused, receiver_check, receiver_refusal
from tests.conftest import ROOT, WorkerFactory
from tests.connected.test_alerts import Receiver

LOOPBACK = ["http://127.0.0.1:9/hooks/x", "http://localhost:9/hooks/x", "http://127.45.6.7/x"]


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _resolving_to(*addresses: str) -> Any:
    """A resolver (socket.getaddrinfo's shape) answering ``addresses`` for any host."""

    def resolve(host: str, port: int, *args: Any) -> Sequence[tuple[Any, ...]]:
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in addresses
        ]

    return resolve


@pytest.mark.django_db
@pytest.mark.parametrize("url", LOOPBACK)
def test_loopback_receivers_are_refused_at_save_over_the_api(
    url: str, staff: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = []
    api = _api(staff)
    made = api.post(
        "/api/clusters/",
        {"name": "prod", "source": "ctx", "webhook_urls": ["https://hooks.example/a", url]},
        format="json",
    )
    assert made.status_code == 400, made.content
    (why,) = made.json()["webhook_urls"]
    assert why.startswith("Webhook 2 is refused:") and "a loopback address" in why, why
    assert "PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS" in why
    assert not Cluster.objects.exists()
    # Allowed by the setting: saved.
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8", "::1/128"]
    again = api.post(
        "/api/clusters/", {"name": "prod", "source": "ctx", "webhook_urls": [url]}, format="json"
    )
    assert again.status_code == 201, again.content


@pytest.mark.django_db
def test_loopback_is_refused_by_the_command_and_the_service(
    owner: Any, settings: Any, tmp_path: Path
) -> None:
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = []
    # The workers' kubeconfig has the context "ctx" (cluster add checks it is there).
    kubeconfig = tmp_path / "workers.kubeconfig"
    kubeconfig.write_text(
        '{"apiVersion": "v1", "kind": "Config", "clusters": [{"name": "c", "cluster": '
        '{"server": "https://127.0.0.1:1"}}], "users": [{"name": "u", "user": {}}], '
        '"contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}]}'
    )
    settings.CONNECTED_KUBECONFIG = str(kubeconfig)
    with pytest.raises(CommandError, match="loopback"):
        call_command(
            "cluster", "add", "prod", "--context", "ctx", "--owner", "owner",
            "--webhook", "http://localhost:6379/x", stdout=StringIO(),
        )  # fmt: skip
    with pytest.raises(ClusterInvalid, match="loopback"):
        cluster_create(name="p", source="ctx", owner=owner, webhook_urls=["http://127.0.0.1/x"])
    assert not Cluster.objects.exists()


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("0.0.0.0", "the unspecified address"),
        ("::", "the unspecified address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.9", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fd00::5", "a private address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("100.64.0.1", "a shared (carrier-grade NAT) address"),
        ("224.0.0.1", "a multicast address"),
    ],
)
def test_inner_addresses_are_refused_through_a_stubbed_resolver(
    address: str, kind: str, settings: Any
) -> None:
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = []
    why = receiver_refusal("https://hooks.example/x", resolver=_resolving_to(address))
    assert why is not None and kind in why and "hooks.example" in why, why
    with pytest.raises(ReceiverRefused, match="not allowed"):
        receiver_check("https://hooks.example/x", resolver=_resolving_to(address))


def test_a_public_address_passes_and_one_bad_address_among_several_refuses(
    settings: Any,
) -> None:
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = []
    assert (
        receiver_refusal("https://hooks.example/x", resolver=_resolving_to("93.184.216.34")) is None
    )
    mixed = _resolving_to("93.184.216.34", "10.0.0.7")
    assert "a private address" in (
        receiver_refusal("https://hooks.example/x", resolver=mixed) or ""
    )


def test_private_networks_pass_only_when_listed(settings: Any) -> None:
    resolver = _resolving_to("10.20.30.40")
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    assert receiver_refusal("https://hooks.internal/x", resolver=resolver) is None
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["10.99.0.0/16"]
    assert receiver_refusal("https://hooks.internal/x", resolver=resolver) is not None
    # Link-local stays refused unless listed itself.
    assert receiver_refusal("https://x.example/", resolver=_resolving_to("169.254.169.254"))


def test_a_host_that_does_not_resolve_is_saved_but_not_sent_to(settings: Any) -> None:
    def nowhere(*args: Any) -> Any:
        raise socket.gaierror("no such host")

    assert receiver_refusal("https://gone.example/x", resolver=nowhere) is None
    with pytest.raises(ReceiverRefused, match="does not resolve"):
        receiver_check("https://gone.example/x", resolver=nowhere)


@pytest.mark.django_db
def test_the_send_judges_the_address_again(
    cluster: Cluster, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver = Receiver(200)
    try:
        settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = []
        delivery = AlertDelivery.objects.create(
            cluster=cluster, kind="new-error", key="k", url=receiver.url, text="t", payload={}
        )
        with pytest.raises(Exception, match="not allowed"):
            alert_send(delivery)
        assert receiver.bodies == []  # nothing reached the loopback receiver
        delivery.refresh_from_db()
        assert delivery.error == "refused: the address is not allowed"
        # Its host now resolves to the metadata address: refused at send, nothing sent.
        monkeypatch.setattr(
            "connected.webhooks.socket.getaddrinfo", _resolving_to("169.254.169.254")
        )
        settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
        with pytest.raises(Exception, match="not allowed"):
            alert_send(delivery)
        assert receiver.bodies == []
        monkeypatch.undo()
        settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
        alert_send(delivery)
        assert len(receiver.bodies) == 1
    finally:
        receiver.close()


@pytest.mark.django_db
def test_a_failing_receiver_shows_members_no_path_and_staff_its_host(
    cluster: Cluster, teammate: Any, staff: Any, client: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    cluster.team = Group.objects.get(name="platform")
    cluster.save()
    failing, quiet = Receiver(503), socket.socket()
    quiet.bind(("127.0.0.1", 0))  # bound, never listening: the connection is refused
    refused_url = f"http://127.0.0.1:{quiet.getsockname()[1]}/hooks/nobody-listens"
    try:
        for i, url in enumerate([failing.url, refused_url]):
            delivery = AlertDelivery.objects.create(
                cluster=cluster, kind="new-error", key=str(i), url=url, text="t", payload={}
            )
            with pytest.raises(Exception):  # noqa: B017 - ReceiverFailed, its class checked below
                alert_send(delivery)
    finally:
        failing.close()
        quiet.close()
    errors = sorted(AlertDelivery.objects.values_list("error", flat=True))
    assert errors == ["HTTP 503", "connection refused"]
    client.force_login(teammate)
    page = client.get(f"/clusters/{cluster.pk}/")
    assert page.status_code == 200
    for secret in (b"secret-path", b"nobody-listens", b"/hooks/", b"127.0.0.1:"):
        assert secret not in page.content, secret
    assert b"HTTP 503" in page.content and b"connection refused" in page.content
    client.force_login(staff)
    staff_page = client.get(f"/clusters/{cluster.pk}/")
    assert b"127.0.0.1" in staff_page.content and b"secret-path" not in staff_page.content


@pytest.mark.worker
def test_the_worker_log_holds_no_url_path(celery_worker_factory: WorkerFactory, owner: Any) -> None:
    failing, quiet = Receiver(500), socket.socket()
    quiet.bind(("127.0.0.1", 0))
    refused_url = f"http://127.0.0.1:{quiet.getsockname()[1]}/hooks/nobody-listens"
    try:
        celery_worker_factory(env={"PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8"})
        log = ROOT / "var" / f"worker-{app.conf.task_default_queue}.log"
        cluster = Cluster.objects.create(name="logged", source="ctx", owner=owner)
        made = [
            AlertDelivery.objects.create(
                cluster=cluster, kind="new-error", key=str(i), url=url, text="t", payload={}
            )
            for i, url in enumerate([failing.url, refused_url])
        ]
        from connected.history.tasks import alert_send_task

        for delivery in made:
            alert_send_task.delay(delivery.pk)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            close_old_connections()
            tried = AlertDelivery.objects.filter(attempts__gte=1).count()
            if tried == 2 and log.read_text().count("retry") >= 2:
                break
            time.sleep(0.2)
        text = Path(log).read_text()
    finally:
        failing.close()
        quiet.close()
    assert text.count("retry") >= 2, text
    assert "HTTP 500" in text and "connection refused" in text
    for secret in ("secret-path", "nobody-listens", "/hooks/"):
        assert secret not in text, secret
