"""A cluster whose source is in-cluster, read as a worker in a pod reads it: the real
kubectl, the API server named by KUBERNETES_SERVICE_HOST/PORT (here the stand-in server,
over HTTPS with a certificate of its own), the ServiceAccount folder mounted (here a
temporary one: token, ca.crt, namespace). And the home page saying where the app runs."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from clusters.models import Snapshot
from connected.in_cluster import in_cluster
from connected.models import Cluster
from connected.reading import kubectl_for
from connected.services import cluster_snapshot_take
from tests.cli.fake_apiserver import FakeAPIServer

TOKEN = "eyJhbGciOi.service-account-token-of-the-test"
PORT = 8907  # this suite's stand-in API server (8900-8909 are this branch's ports)


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, written in ``folder``."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def server_tls(tmp_path: Path) -> tuple[Path, Path]:
    return _certificate(tmp_path / "tls", "apiserver")


@pytest.fixture
def serviceaccount(tmp_path: Path, server_tls: tuple[Path, Path], settings: Any) -> Path:
    """The folder the kubelet would mount: token, the API server's CA, the namespace."""
    folder = tmp_path / "serviceaccount"
    folder.mkdir()
    (folder / "token").write_text(TOKEN)
    (folder / "ca.crt").write_bytes(server_tls[0].read_bytes())
    (folder / "namespace").write_text("preemptlab")
    settings.CONNECTED_SERVICEACCOUNT_DIR = str(folder)
    return folder


@pytest.fixture
def in_a_pod(monkeypatch: pytest.MonkeyPatch, serviceaccount: Path) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(PORT))


@pytest.fixture
def served_in_cluster(
    fake: FakeAPIServer,
    tmp_path: Path,
    server_tls: tuple[Path, Path],
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    kube_env: None,
) -> Iterator[FakeAPIServer]:
    """The stand-in API server over HTTPS on PORT; every kubeconfig the worker could find
    otherwise (KUBECONFIG, CONNECTED_KUBECONFIG) points at a server that does not exist."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = elsewhere / "kubeconfig"
    other.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "x", "cluster": {"server": "https://127.0.0.1:8909"}}],
                "users": [{"name": "x", "user": {"token": "not-this-one"}}],
                "contexts": [{"name": "x", "context": {"cluster": "x", "user": "x"}}],
                "current-context": "x",
            }
        )
    )
    monkeypatch.setenv("KUBECONFIG", str(other))
    settings.CONNECTED_KUBECONFIG = str(other)
    settings.CONNECTED_READ_TIMEOUT = 20
    with fake.running(tmp_path, port=PORT, tls=server_tls):
        yield fake


@pytest.fixture
def here(owner: Any) -> Cluster:
    return Cluster.objects.create(name="here", source="in-cluster", owner=owner)


def test_an_in_cluster_read_is_the_service_accounts_over_tls(
    in_a_pod: None, served_in_cluster: FakeAPIServer, here: Cluster
) -> None:
    snapshot = cluster_snapshot_take(cluster_id=here.pk)
    here.refresh_from_db()
    assert snapshot is not None, here.last_failure_reason
    assert (snapshot.node_count, snapshot.pod_count) == (5, 22)
    assert [e["reason"] for e in snapshot.events] == ["Preempted"]
    fake = served_in_cluster
    # Every request carried the mounted token, none another credential; reads only.
    assert fake.authorizations and set(fake.authorizations) == {f"Bearer {TOKEN}"}
    assert fake.writes == []
    assert any(p.startswith("/api/v1/nodes") for p in fake.requests)


def test_the_token_is_named_never_copied(
    in_a_pod: None, serviceaccount: Path, tmp_path: Path, owner: Any
) -> None:
    kubectl = kubectl_for(Cluster(name="here", source="in-cluster", owner=owner), tmp_path)
    assert kubectl.kubeconfig is not None and kubectl.context == "in-cluster"
    written = json.loads(Path(kubectl.kubeconfig).read_text())
    assert TOKEN not in Path(kubectl.kubeconfig).read_text()
    assert written["users"][0]["user"] == {"tokenFile": str(serviceaccount / "token")}
    assert written["clusters"][0]["cluster"] == {
        "server": f"https://127.0.0.1:{PORT}",
        "certificate-authority": str(serviceaccount / "ca.crt"),
    }
    assert written["contexts"][0]["context"]["namespace"] == "preemptlab"


def test_in_cluster_hides_every_kubeconfig(
    in_a_pod: None, tmp_path: Path, owner: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("KUBECONFIG", "/somewhere/config")
    kubectl = kubectl_for(Cluster(name="here", source="in-cluster", owner=owner), tmp_path)
    assert kubectl.env is not None and "KUBECONFIG" not in kubectl.env
    assert not any(Path(kubectl.env["HOME"]).iterdir())
    command = kubectl.command()
    assert command[command.index("--kubeconfig") + 1] == str(tmp_path / "in-cluster.kubeconfig")


def test_a_server_whose_certificate_the_mounted_ca_did_not_sign_is_refused(
    in_a_pod: None,
    serviceaccount: Path,
    served_in_cluster: FakeAPIServer,
    here: Cluster,
    tmp_path: Path,
) -> None:
    other_ca, _ = _certificate(tmp_path / "other", "other")
    (serviceaccount / "ca.crt").write_bytes(other_ca.read_bytes())
    assert cluster_snapshot_take(cluster_id=here.pk) is None
    here.refresh_from_db()
    assert "certificate" in here.last_failure_reason
    assert not Snapshot.objects.filter(cluster=here).exists()
    assert served_in_cluster.authorizations == []


def test_without_a_mounted_token_the_read_fails_saying_so(
    in_a_pod: None, serviceaccount: Path, served_in_cluster: FakeAPIServer, here: Cluster
) -> None:
    (serviceaccount / "token").unlink()
    assert cluster_snapshot_take(cluster_id=here.pk) is None
    here.refresh_from_db()
    assert here.last_failure_reason.startswith(
        f"no ServiceAccount token at {serviceaccount / 'token'}: the worker's pod must mount it"
    )
    assert served_in_cluster.calls == []


def test_outside_a_pod_the_read_fails_saying_so(
    serviceaccount: Path, here: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_PORT", raising=False)
    assert cluster_snapshot_take(cluster_id=here.pk) is None
    here.refresh_from_db()
    assert here.last_failure_reason.startswith("not running in a cluster: KUBERNETES_SERVICE_HOST")


def test_where_it_runs(tmp_path: Path) -> None:
    (tmp_path / "namespace").write_text("preemptlab\n")
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    assert str(in_cluster(env, tmp_path)) == "cluster at https://10.0.0.1:443, namespace preemptlab"
    v6 = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
    assert str(in_cluster(v6, tmp_path / "none")) == "cluster at https://[fd00::1]:443"
    assert in_cluster({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, tmp_path) is None


def test_the_home_page_says_where_it_runs_to_signed_in_users_only(
    client: Any, owner_client: Any, serviceaccount: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    page = owner_client.get("/").content.decode()
    assert "Running in cluster at https://10.0.0.1:443, namespace preemptlab." in page
    owner_client.logout()
    anonymous = owner_client.get("/", follow=True).content.decode()
    assert "10.0.0.1" not in anonymous and "Running in cluster" not in anonymous


def test_the_home_page_outside_a_pod_says_nothing_of_it(
    owner_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    page = owner_client.get("/").content.decode()
    assert page.count("<h1>") == 1 and 'id="in-cluster"' not in page
