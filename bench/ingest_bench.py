"""Snapshot ingest benchmark: a 5,000-node / 150,000-pod kubectl JSON dump.

    DEBUG=1 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python bench/ingest_bench.py [--nodes 5000 --pods 150000]

1. Generates the dump (cached under bench/out/) with bench/generate_cluster.py's
   generate(decorate=True), decorated further with what kubectl prints and the
   scrubber removes (managedFields, last-applied annotations, envFrom) plus a few
   Secrets, ConfigMaps and ReplicaSets; written indented as kubectl prints it.
2. In a fresh process (so the peak memory is the ingest's alone): creates a
   throwaway database, ingests the dump through the service a worker runs,
   and times the nodes and pods pages (first page, a filtered page, a deep page)
   with Django's test client.

Targets on the reference machine: ingest <= 30 s, peak <= 3 GiB, each page <= 300 ms.
Run on demand; never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT))


def _managed_fields(rng: random.Random, containers: list[str]) -> list[dict[str, Any]]:
    spec_fields: dict[str, Any] = {
        "f:containers": {
            f'k:{{"name":"{c}"}}': {
                ".": {},
                "f:name": {},
                "f:ports": {
                    'k:{"containerPort":8080,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}
                },
                "f:resources": {
                    ".": {},
                    "f:limits": {".": {}, "f:memory": {}},
                    "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}},
                },
                "f:terminationMessagePath": {},
                "f:volumeMounts": {
                    'k:{"mountPath":"/config"}': {".": {}, "f:mountPath": {}, "f:name": {}}
                },
            }
            for c in containers
        },
        "f:dnsPolicy": {},
        "f:enableServiceLinks": {},
        "f:priorityClassName": {},
        "f:restartPolicy": {},
        "f:schedulerName": {},
        "f:securityContext": {},
        "f:terminationGracePeriodSeconds": {},
        "f:volumes": {
            'k:{"name":"config"}': {".": {}, "f:configMap": {".": {}, "f:name": {}}, "f:name": {}}
        },
    }
    return [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:generateName": {},
                    "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:team": {}},
                    "f:ownerReferences": {".": {}, 'k:{"uid":"x"}': {}},
                },
                "f:spec": spec_fields,
            },
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": "2025-01-06T09:00:00Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {
                        f'k:{{"type":"{t}"}}': {
                            ".": {},
                            "f:lastProbeTime": {},
                            "f:lastTransitionTime": {},
                            "f:status": {},
                            "f:type": {},
                        }
                        for t in (
                            "ContainersReady",
                            "Initialized",
                            "PodReadyToStartContainers",
                            "Ready",
                        )
                    },
                    "f:containerStatuses": {},
                    "f:hostIP": {},
                    "f:phase": {},
                    "f:podIP": {},
                    "f:startTime": {},
                }
            },
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": f"2025-01-06T09:{rng.randrange(60):02d}:00Z",
        },
    ]


def _decorate(obj: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Add what kubectl prints and the scrubber removes: managedFields, the
    last-applied annotation, envFrom (on top of generate()'s env values)."""
    meta = obj.setdefault("metadata", {})
    if obj.get("kind") == "Pod":
        containers = [c.get("name", "main") for c in obj["spec"].get("containers", [])]
        meta["managedFields"] = _managed_fields(rng, containers)
        for c in obj["spec"].get("containers", []):
            c["envFrom"] = [{"secretRef": {"name": f"{meta.get('name', 'app')[:20]}-secrets"}}]
        last_applied = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
            "spec": {
                "containers": [
                    {"name": n, "image": "registry.example.com/app:1.0"} for n in containers
                ]
            },
        }
        meta.setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = (
            orjson.dumps(last_applied).decode()
        )
    elif obj.get("kind") == "Node":
        meta["managedFields"] = [
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {
                    "f:status": {"f:allocatable": {}, "f:capacity": {}, "f:conditions": {}}
                },
                "manager": "kubelet",
                "operation": "Update",
                "time": "2025-01-01T00:00:00Z",
            }
        ]
    return obj


def _extras() -> list[dict[str, Any]]:
    """What a careless `kubectl get all,secrets,cm` adds: dropped or skipped on ingest."""
    out: list[dict[str, Any]] = []
    for k in range(100):
        meta = {"namespace": "default"}
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": meta | {"name": f"app-{k}-secrets"},
                "type": "Opaque",
                "data": {"password": "c2VjcmV0"},
            }
        )
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": meta | {"name": f"app-{k}-config"},
                "data": {"config.yaml": "debug: false"},
            }
        )
        out.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": meta | {"name": f"app-{k}-rs"},
                "spec": {"replicas": 3},
            }
        )
    return out


def write_dump(path: Path, nodes: int, pods: int, seed: int) -> None:
    """generate()'s v1 List, decorated, written indented as kubectl -o json prints it."""
    from bench.generate_cluster import generate

    rng = random.Random(seed)
    dump = generate(nodes, pods, max(1, pods // 50), seed, decorate=True)
    with path.open("wb") as f:
        f.write(b'{\n  "apiVersion": "v1",\n  "items": [\n')
        for i, obj in enumerate([*dump["items"], *_extras()]):
            if i:
                f.write(b",\n")
            f.write(orjson.dumps(_decorate(obj, rng), option=orjson.OPT_INDENT_2))
        f.write(b'\n  ],\n  "kind": "List",\n  "metadata": {"resourceVersion": ""}\n}\n')


def _vm_hwm_kib() -> int:
    """Peak resident memory of this process image (VmHWM). ru_maxrss would also count
    the parent's peak before exec, i.e. the dump generator's."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _ingest_and_time(path: Path) -> dict[str, Any]:
    """Runs in a fresh process: ingest into a throwaway database, then time the pages."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("TEST_DB_NAME", f"bench_ingest_{os.getpid()}")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.DEBUG = False  # no query log while inserting 150,000 rows
    settings.ALLOWED_HOSTS = ["testserver"]
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        from clusters import services

        owner = get_user_model().objects.create_user("bench", password="bench-password-1")
        rss_before = _vm_hwm_kib()
        started = time.perf_counter()
        data = path.read_bytes()
        files = [services.UploadedFile(name=path.name, data=data)]
        del data
        from clusters import models

        snapshot = models.Snapshot.objects.create(
            owner=owner,
            name="bench",
            source_files=[{"name": path.name, "size": path.stat().st_size}],
            total_bytes=path.stat().st_size,
        )
        services.snapshot_ingest_files(snapshot=snapshot, files=files)
        wall = time.perf_counter() - started
        peak = _vm_hwm_kib()
        if not snapshot.is_ready:
            raise SystemExit(f"ingest failed: {snapshot.error}")

        client = Client()
        client.force_login(owner)
        some_node = (
            models.Node.objects.filter(snapshot=snapshot)
            .order_by("name")[snapshot.node_count // 2]
            .name
        )
        pages = {
            "nodes, first page": f"/snapshots/{snapshot.pk}/nodes/",
            "nodes, filtered (name contains)": f"/snapshots/{snapshot.pk}/nodes/?q=node-0421",
            "nodes, page 60": f"/snapshots/{snapshot.pk}/nodes/?page=60",
            "pods, first page": f"/snapshots/{snapshot.pk}/pods/",
            "pods, filtered by namespace": f"/snapshots/{snapshot.pk}/pods/?namespace=ns-17",
            "pods, filtered by node": f"/snapshots/{snapshot.pk}/pods/?node={some_node}",
            "pods, filtered by class+phase": f"/snapshots/{snapshot.pk}/pods/?priority_class=tier-2&phase=Running",
            "pods, page 2000": f"/snapshots/{snapshot.pk}/pods/?page=2000",
            "API pods, first page": f"/api/snapshots/{snapshot.pk}/pods/",
            "API pods, filtered by namespace": f"/api/snapshots/{snapshot.pk}/pods/?namespace=ns-17",
            "API nodes, first page": f"/api/snapshots/{snapshot.pk}/nodes/",
            "overview": f"/snapshots/{snapshot.pk}/",
        }
        timings = {}
        for label, url in pages.items():
            client.get(url)  # warm: template compilation, connection
            best = float("inf")
            for _ in range(5):
                t = time.perf_counter()
                response = client.get(url)
                best = min(best, time.perf_counter() - t)
                assert response.status_code == 200, (url, response.status_code)
            timings[label] = round(best * 1000, 1)
        return {
            "database": connection.vendor,
            "file_bytes": path.stat().st_size,
            "nodes": snapshot.node_count,
            "pods": snapshot.pod_count,
            "pdbs": snapshot.pdb_count,
            "ingest_seconds": round(wall, 2),
            "ingest_ms_reported": snapshot.duration_ms,
            "peak_rss_mib_before_ingest": round(rss_before / 1024),
            "peak_rss_mib": round(peak / 1024),
            "scrubbed": snapshot.scrubbed,
            "page_ms_best_of_5": timings,
        }
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ingest", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ingest:
        print(json.dumps(_ingest_and_time(args.ingest)))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"cluster-{args.nodes}n-{args.pods}p-s{args.seed}.json"
    if not path.exists():
        t = time.perf_counter()
        write_dump(path, args.nodes, args.pods, args.seed)
        size = path.stat().st_size / 2**20
        print(
            f"generated {path.name}: {size:.0f} MiB in {time.perf_counter() - t:.1f} s",
            file=sys.stderr,
        )
    result = subprocess.run(
        [sys.executable, __file__, "--ingest", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    if result.returncode:
        print(result.stderr, file=sys.stderr)
        raise SystemExit(result.returncode)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    report["file_mib"] = round(report["file_bytes"] / 2**20)
    report["bytes_per_pod"] = round(report["file_bytes"] / max(1, report["pods"]))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
