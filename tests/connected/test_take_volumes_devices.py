"""A connected cluster's read holds its volume and device objects (the real kubectl, the
stand-in API server, a real cluster's dump with every storage and DRA kind); a cluster
that does not serve resource.k8s.io/v1 still gives a snapshot, whose warnings say what
the read left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clusters.models import Device, VolumeClaim
from connected.models import Cluster
from connected.services import cluster_snapshot_take
from tests.cli.fake_apiserver import FakeAPIServer
from tests.storage_dra_dump import storage_dra_dump

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("unserved", [set(), {"resource.k8s.io"}])
def test_a_read_holds_the_volume_and_device_objects_it_may_list(
    tmp_path: Path, settings: Any, kube_env: None, demo_cluster: Cluster, unserved: set[str]
) -> None:
    fake = FakeAPIServer(storage_dra_dump()["items"], unserved=unserved)
    with fake.running(tmp_path) as kubeconfig:
        settings.CONNECTED_KUBECONFIG = str(kubeconfig)
        settings.CONNECTED_READ_TIMEOUT = 20
        snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
    assert snapshot is not None and snapshot.is_ready, demo_cluster.last_failure_reason
    assert VolumeClaim.objects.filter(snapshot=snapshot).count() == 7
    left_out = [w for w in snapshot.warnings if w.startswith("Left out of the read")]
    if unserved:
        assert Device.objects.filter(snapshot=snapshot).count() == 0
        assert len(left_out) == 4
        assert "deviceclasses.v1.resource.k8s.io: the cluster does not serve it" in left_out[0]
    else:
        assert Device.objects.filter(snapshot=snapshot).count() == 24
        assert left_out == []
    assert fake.writes == []
