"""One time-zero rule, said alike by the engine, the page and the README: a timed run's
clock starts the second after the snapshot's latest pod start (2025-06-02T09:00:00Z
only when no pod in it has started). A dump taken in 2021 runs in 2021, not in 2025."""

from __future__ import annotations

import html as html_text
import json
import re
from typing import Any

import pytest

from scheduling import services
from scheduling.engine.simulate import simulate
from scheduling.engine.simulate.scheduler import EPOCH
from tests.clusters.builders import make_deployment
from tests.conftest import ROOT
from tests.realworld import demote_workers, import_dump, real_dump

RULE = (
    "Time zero is the second after the snapshot's latest pod start (2025-06-02T09:00:00Z "
    "when no pod in it has started)"
)


def _dump_of_2021() -> dict[str, Any]:
    """Two nodes whose pods started in March 2021, the last at 07:08:09.4."""

    def pod(name: str, node: str, started: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "labels": {"app": "web"}},
            "spec": {
                "nodeName": node,
                "priority": 0,
                "containers": [{"name": "web", "resources": {"requests": {"cpu": "1"}}}],
            },
            "status": {"phase": "Running", "startTime": started},
        }

    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}},
        }
        for n in ("node-1", "node-2")
    ]
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            *nodes,
            pod("web-a", "node-1", "2021-03-04T05:06:07Z"),
            pod("web-b", "node-1", "2021-03-04T07:08:09.4Z"),
            pod("web-c", "node-2", "2021-03-01T00:00:00Z"),
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "medium"},
                "value": 1000,
            },
        ],
    }


def _rollout(replicas: int) -> dict[str, Any]:
    spec = {
        "priorityClassName": "medium",
        "containers": [{"name": "api", "resources": {"requests": {"cpu": "1"}}}],
    }
    return make_deployment("api", spec, replicas=replicas, namespace="shop")


def test_the_clock_starts_the_second_after_the_latest_start_even_years_ago() -> None:
    pending = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"api-{i}"}, "spec": spec}
        for i, spec in enumerate([_rollout(1)["spec"]["template"]["spec"]] * 3)
    ]
    for p in pending:
        p["metadata"]["namespace"] = "shop"
    sim = simulate(_dump_of_2021()["items"], pending, timeline=True).to_dict()
    assert sim["timeline"]["clock_origin"] == "2021-03-04T07:08:10.000Z"
    assert sim["events"][0]["type"] == "bind"


def test_a_snapshot_without_start_times_starts_at_the_fixed_origin() -> None:
    dump = _dump_of_2021()
    for item in dump["items"]:
        item.get("status", {}).pop("startTime", None)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "shop"},
           "spec": {"containers": [{"name": "x"}]}}  # fmt: skip
    sim = simulate(dump["items"], [pod], timeline=True).to_dict()
    assert sim["timeline"]["clock_origin"] == "2025-06-02T09:00:00.000Z"
    assert EPOCH.strftime("%Y-%m-%dT%H:%M:%SZ") == "2025-06-02T09:00:00Z"


@pytest.mark.parametrize(
    ("dump", "origin"),
    [
        ("built-2021", "2021-03-04T07:08:10.000Z"),
        # ocp-aws's last pod started at 2021-08-03T09:46:12Z.
        ("ocp-aws", "2021-08-03T09:46:13.000Z"),
    ],
)
def test_the_page_says_the_rule_with_the_run_s_own_time_zero(
    owner_client: Any, owner: Any, no_broker: Any, dump: str, origin: str
) -> None:
    objects = _dump_of_2021() if dump == "built-2021" else demote_workers(real_dump(dump))
    snapshot = import_dump(owner, dump, objects)
    analysis = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=snapshot, objects=[_rollout(3)], timeline=True
        ).pk
    )
    assert analysis.is_done, analysis.error
    assert analysis.result["timeline"]["clock_origin"] == origin
    html = owner_client.get(analysis.get_absolute_url()).content.decode()
    said = re.search(r'<span id="time-zero">([^<]*)</span>', html)
    assert said is not None
    assert html_text.unescape(said.group(1)) == (
        f"Time zero is {origin}, the second after the snapshot's latest pod start "
        "(2025-06-02T09:00:00.000Z when no pod in it has started)"
    )


def test_the_readme_and_the_api_say_the_same_rule(api: Any) -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert RULE in readme
    assert "after every pod start" not in readme
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert (
        "time zero: the second after the snapshot's latest pod start, 2025-06-02T09:00:00Z "
        "when no pod has started" in json.dumps(schema)
    )
