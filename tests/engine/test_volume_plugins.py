"""The volume plugins beyond the recorded scenarios: a profile that disables them, their
arguments, malformed storage objects, and the victim selection they force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import InvalidInput, analyze, load_cluster

SCENARIO = (
    Path(__file__).parent.parent
    / "conformance"
    / "storage"
    / "single"
    / "0004-pv-zone-pin-zone-6n.json"
)


def _scenario() -> dict[str, Any]:
    return json.loads(SCENARIO.read_text())


def _profile(disabled: list[str], args: dict[str, Any] | None = None) -> dict[str, Any]:
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"disabled": [{"name": n} for n in disabled]}},
    }
    if args:
        profile["pluginConfig"] = [{"name": n, "args": a} for n, a in args.items()]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }


def test_a_zone_pinned_pod_preempts_in_its_volumes_zone_only() -> None:
    v = _scenario()
    got = analyze(v["snapshot"], v["preemptor"]).to_dict()
    assert got["outcome"] == "preempts"
    assert sorted(c["node"] for c in got["candidates"]) == sorted(
        c["node"] for c in v["expected"]["preemption"]["candidates"]
    )


def test_a_profile_without_the_volume_plugins_ignores_the_volumes() -> None:
    # Disabled, VolumeBinding no longer confines the candidates to the volume's zone: every
    # node the dry run can make room on is one.
    v = _scenario()
    pinned = analyze(v["snapshot"], v["preemptor"]).to_dict()
    blind = analyze(
        v["snapshot"],
        v["preemptor"],
        scheduler_config=_profile(
            ["VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"]
        ),
    ).to_dict()
    assert len(blind["candidates"]) > len(pinned["candidates"])
    assert {c["node"] for c in pinned["candidates"]} < {c["node"] for c in blind["candidates"]}


def test_volume_binding_args_are_validated_as_kube_scheduler_does() -> None:
    v = _scenario()
    with pytest.raises(InvalidInput, match="invalid BindTimeoutSeconds, should not be a negative"):
        analyze(
            v["snapshot"],
            v["preemptor"],
            scheduler_config=_profile([], {"VolumeBinding": {"bindTimeoutSeconds": -1}}),
        )
    with pytest.raises(InvalidInput, match="unsupported when StorageCapacityScoring"):
        analyze(
            v["snapshot"],
            v["preemptor"],
            scheduler_config=_profile(
                [], {"VolumeBinding": {"shape": [{"utilization": 0, "score": 0}]}}
            ),
        )


@pytest.mark.parametrize(
    ("obj", "where"),
    [
        (
            {
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data", "namespace": "db"},
                "spec": {"resources": {"requests": {"storage": "ten gigs"}}},
            },
            "PersistentVolumeClaim db/data: spec.resources.requests.storage",
        ),
        (
            {
                "kind": "StorageClass",
                "metadata": {"name": "gp3"},
                "volumeBindingMode": "Later",
            },
            "StorageClass gp3: volumeBindingMode",
        ),
        (
            {
                "kind": "CSINode",
                "metadata": {"name": "n1"},
                "spec": {"drivers": [{"name": "ebs.csi.aws.com", "allocatable": {"count": -1}}]},
            },
            "CSINode n1: spec.drivers[0].allocatable.count",
        ),
        (
            {
                "kind": "Pod",
                "metadata": {"name": "p", "namespace": "db"},
                "spec": {
                    "containers": [{"name": "c"}],
                    "volumes": [{"name": "data", "persistentVolumeClaim": {}}],
                },
            },
            "Pod db/p: spec.volumes[0].persistentVolumeClaim.claimName",
        ),
    ],
)
def test_malformed_storage_objects_are_refused_where_they_are(
    obj: dict[str, Any], where: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        load_cluster({"kind": "List", "items": [obj]}, source="snap.json")
    assert str(e.value).startswith(f"snap.json: items[0] {where}: ")


def test_a_pod_with_volumes_never_takes_the_resources_only_path() -> None:
    # The volume filters come after NodeResourcesFit: a full node in the wrong zone is a
    # potential node, and only the general path runs VolumeBinding in its dry run.
    v = _scenario()
    result = analyze(v["snapshot"], v["preemptor"])
    assert result.details()["preemption"]["resources_only_fast_path"] is False
    rejected = {
        n: st["preemption"]["reasons"]
        for n, st in v["expected"]["nodes"].items()
        if st.get("preemption")
    }
    ours = result.details()["node_statuses"]
    for node, reasons in rejected.items():
        assert ours[node]["preemption"]["reasons"] == reasons


def test_a_pickled_cluster_keeps_its_storage_objects() -> None:
    # Ingest stores the loaded cluster pickled for the workers: the claims, volumes and
    # pods' volumes come back and give the same answer.
    import pickle

    v = _scenario()
    cluster = load_cluster(v["snapshot"])
    again = pickle.loads(pickle.dumps(cluster))
    assert sorted(again.storage.claims) == sorted(cluster.storage.claims)
    assert analyze(again, v["preemptor"]).to_dict() == analyze(cluster, v["preemptor"]).to_dict()


def test_a_snapshot_without_storage_objects_leaves_claims_unchecked_and_says_so() -> None:
    # A dump taken without the storage kinds (every real cluster has a StorageClass):
    # the claim is unknown, not missing. The pod is answered as before volumes counted,
    # and the warning says how to take the snapshot.
    from scheduling.engine.volumes.storage import NO_STORAGE_WARNING

    from .builders import as_list, make_node, make_pod

    holder = make_pod("db-0").node("n1").req(cpu="1").obj()
    holder["spec"]["volumes"] = [{"name": "d", "persistentVolumeClaim": {"claimName": "data-db-0"}}]
    cluster = load_cluster(as_list(make_node("n1").capacity(cpu="4", pods="110").obj(), holder))
    assert NO_STORAGE_WARNING in cluster.warnings
    pending = make_pod("db-1").req(cpu="1").obj()
    pending["spec"]["volumes"] = [
        {"name": "d", "persistentVolumeClaim": {"claimName": "data-db-1"}}
    ]
    got = analyze(cluster, pending).to_dict()
    assert got["outcome"] == "fits" and got["node"] == "n1"
    # With any storage object the claim is looked up, and a missing one is refused.
    sc = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "gp3"},
        "provisioner": "ebs.csi.aws.com",
    }
    with_class = load_cluster(
        as_list(make_node("n1").capacity(cpu="4", pods="110").obj(), holder, sc)
    )
    assert NO_STORAGE_WARNING not in with_class.warnings
    refused = analyze(with_class, pending).to_dict()
    assert refused["outcome"] == "unschedulable"
    assert refused["message"].endswith('persistentvolumeclaim "data-db-1" not found. not found')
