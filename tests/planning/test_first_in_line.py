"""First in line over the API, the Plan tab and manage.py plan, on the demo snapshot
(clusters/demo.py; the ranking itself is derived by hand in
tests/engine/test_first_in_line.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from clusters.demo import demo_objects
from clusters.models import Snapshot
from clusters.services import snapshot_create_from_objects
from planning.first_in_line import first_in_line_request, ranking_line
from planning.models import FirstInLineRanking
from planning.pictures import app_label, app_labels, first_in_line_svg
from planning.services import plan_cache_clear
from scheduling.engine.plan.first_in_line import AppInLine, FirstHit, FirstInLine
from scheduling.reports import gates
from tests.engine.builders import make_node, make_pod, make_priority_class

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rankings_eager")]

GIB = 1024**3


@pytest.fixture(autouse=True)
def _no_plans_kept() -> Any:
    plan_cache_clear()
    yield
    plan_cache_clear()


def _url(snapshot: Any) -> str:
    return f"/api/snapshots/{snapshot.pk}/plan/"


def test_the_ranking_is_in_the_plan_unless_left_out(api: APIClient, demo_snapshot: Any) -> None:
    # DESIGN.md's plan answer holds first_in_line (a list); first_in_line=0 runs no probe.
    assert isinstance(api.get(_url(demo_snapshot)).json()["first_in_line"], list)
    r = api.get(_url(demo_snapshot), {"first_in_line": "0"})
    assert r.status_code == 200
    assert "first_in_line" not in r.json() and "first_in_line_probe" not in r.json()


def test_the_ranking_rides_along_with_the_plan(api: APIClient, demo_snapshot: Any) -> None:
    r = api.get(
        _url(demo_snapshot), {"first_in_line": "1", "cpu": "1", "memory": "2Gi", "limit": "50"}
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert "ladder" in body and "findings" in body
    line = body["first_in_line_probe"]
    assert line["size"] == {"cpu_millis": 1000, "memory_bytes": 2 * GIB}
    assert line["limit"] == 50
    apps = body["first_in_line"]
    first = apps[0]
    # The first 1-CPU probe at cat-1's level takes node-5's purple (derived by hand in
    # the engine's tests): purple absorbs nothing.
    assert first["app"] == "Deployment default/purple"
    assert (first["absorbed"], first["absorbed_cpu_millis"]) == (0, 0)
    assert first["first_hit"]["node"] == "node-5" and first["first_hit"]["replica"] == 1
    assert first["pdb_allows_disruption"] is True
    assert first["priority_class"] == "cat-1" and first["pods"] == 4
    # kube-proxy (system-node-critical) is out of reach and ranked last.
    assert line["skipped_levels"] == [2_000_001_000]
    assert apps[-1]["app"] == "DaemonSet kube-system/kube-proxy"
    assert apps[-1]["reachable"] is False and apps[-1]["absorbed"] is None


def test_a_smaller_probe_is_absorbed_longer(api: APIClient, demo_snapshot: Any) -> None:
    # 300m fits beside the 300-400m of slack on every node: each node takes one 300m
    # probe for nothing (5), then every cat-1 victim (1 CPU) makes room for three more.
    # So the first cat-1 pod goes only at replica 6: purple on node-5 still first.
    r = api.get(_url(demo_snapshot), {"first_in_line": "true", "cpu": "300m", "memory": "256Mi"})
    assert r.status_code == 200, r.content
    first = r.json()["first_in_line"][0]
    assert first["app"] == "Deployment default/purple"
    assert first["absorbed"] == 5
    assert first["absorbed_cpu_millis"] == 1500


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cpu": "two"}, "cpu"),
        ({"memory": "lots"}, "memory"),
        ({"memory": "0"}, "memory"),
        ({"limit": "0"}, "limit"),
        ({"limit": "201"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"first_in_line": "maybe"}, "first_in_line"),
    ],
)
def test_a_bad_size_or_limit_is_a_400_naming_its_field(
    api: APIClient, demo_snapshot: Any, params: dict[str, str], field: str
) -> None:
    r = api.get(_url(demo_snapshot), {"first_in_line": "1", **params})
    assert r.status_code == 400
    assert list(r.json()) == [field]


def test_anyone_else_s_snapshot_is_a_404(api: APIClient, demo_snapshot: Any, stranger: Any) -> None:
    other = APIClient()
    other.force_authenticate(stranger)
    assert other.get(_url(demo_snapshot), {"first_in_line": "1"}).status_code == 404
    Snapshot.objects.filter(pk=demo_snapshot.pk).update(status="ingesting")
    assert api.get(_url(demo_snapshot), {"first_in_line": "1"}).status_code == 409


def test_the_schema_describes_the_ranking(api: APIClient) -> None:
    r = api.get("/api/schema/", {"format": "json"})
    assert r.status_code == 200
    schemas = r.json()["components"]["schemas"]
    assert "first_in_line" in schemas["Plan"]["properties"]
    assert "absorbed" in schemas["AppInLine"]["properties"]


def _demo_file(tmp_path: Path) -> str:
    path = tmp_path / "demo.json"
    path.write_bytes(orjson.dumps(demo_objects()))
    return str(path)


def test_manage_py_plan_adds_the_ranking_in_every_format(tmp_path: Path, capsys: Any) -> None:
    snapshot = _demo_file(tmp_path)
    call_command(
        "plan", snapshot, "--first-in-line", "--size", "1,2Gi", "--limit", "50",
        "--format", "json", "--fail-on", "never",
    )  # fmt: skip
    body = json.loads(capsys.readouterr().out)
    assert [a["app"] for a in body["first_in_line"][:2]] == [
        "Deployment default/purple",
        "Deployment default/blue",
    ]
    call_command("plan", snapshot, "--first-in-line", "--fail-on", "never")
    text = capsys.readouterr().out
    assert "First in line: probe pods of 1 CPU / 2Gi" in text
    # Blue absorbs one 1-CPU, 2Gi probe before its pod on node-5 goes.
    blue = next(line for line in text.splitlines() if "Deployment default/blue" in line)
    assert blue.split()[:1] == ["2"] and "replica 2 on node-5" in blue
    call_command("plan", snapshot, "--first-in-line", "--format", "markdown", "--fail-on", "never")
    assert "| 1 | `Deployment default/purple` |" in capsys.readouterr().out
    # Without the flag the ranking is not computed nor printed.
    call_command("plan", snapshot, "--format", "json", "--fail-on", "never")
    assert "first_in_line" not in json.loads(capsys.readouterr().out)
    for bad in (["--size", "1"], ["--size", "one,2Gi"], ["--limit", "0"]):
        with pytest.raises(CommandError) as raised:
            call_command("plan", snapshot, "--first-in-line", *bad)
        assert raised.value.returncode == gates.BAD_INPUT


# The page ------------------------------------------------------------------------------


def _page(snapshot: Any) -> str:
    return f"/snapshots/{snapshot.pk}/plan/first-in-line/"


def test_the_plan_tab_offers_the_form_with_its_defaults(
    owner_client: Any, demo_snapshot: Any
) -> None:
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/plan/").content.decode()
    assert 'id="first-in-line-form"' in html
    assert f'hx-get="{_page(demo_snapshot)}"' in html and 'hx-target="#first-in-line"' in html
    assert 'name="cpu" value="1"' in html and 'name="memory" value="2Gi"' in html
    assert 'name="limit" value="50"' in html
    # Nothing is run until asked.
    assert 'id="first-in-line-table"' not in html


def test_the_ranking_page_and_its_fragment(owner_client: Any, demo_snapshot: Any) -> None:
    params = {"cpu": "1", "memory": "2Gi", "limit": "50"}
    html = owner_client.get(_page(demo_snapshot), params).content.decode()
    assert "<html" in html and 'id="first-in-line-svg"' in html
    table = _text(html[html.index('id="first-in-line-table"') :])
    # Ranked as derived by hand: purple, blue, red, green, the ingress controller.
    order = [
        table.index(f"<code>{app}</code>")
        for app in (
            "Deployment default/purple",
            "Deployment default/blue",
            "Deployment default/red",
            "Deployment default/green",
        )
    ]
    assert order == sorted(order)
    assert "replica 1 on node-5" in table
    # coredns is beyond 50 probes; kube-proxy out of reach.
    assert "&gt; 50" in table and "out of reach" in table
    fragment = owner_client.get(
        _page(demo_snapshot), params, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="first-in-line"
    ).content.decode()
    assert "<html" not in fragment and fragment.strip().startswith('<div id="first-in-line">')


def test_a_bad_size_is_said_in_the_section(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.get(_page(demo_snapshot), {"cpu": "two", "memory": "2Gi", "limit": "50"})
    assert r.status_code == 400
    assert "is not a quantity" in r.content.decode()
    # htmx swaps only a 2xx answer: the fragment comes back 200 with the error in it.
    r = owner_client.get(
        _page(demo_snapshot),
        {"cpu": "1", "memory": "2Gi", "limit": "999"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="first-in-line",
    )
    assert r.status_code == 200 and 'id="first-in-line-errors"' in r.content.decode()


def test_anyone_else_s_ranking_page_is_a_404(
    client: Any, demo_snapshot: Any, stranger: Any
) -> None:
    client.force_login(stranger)
    assert client.get(_page(demo_snapshot), {"cpu": "1"}).status_code == 404


def test_sixty_apps_page_by_fifty(owner_client: Any, owner: Any) -> None:
    # One 4-CPU node full of sixty lone 50m pods at priority 100 (each its own app), the
    # node's 1 CPU left free: a 1-CPU probe fits once, and each later probe takes 20 of
    # them (1 CPU). So 60 apps, ranked, 50 on the first page and 10 on the second.
    items = [
        make_priority_class("low", 100),
        make_node("n").capacity(cpu="4", memory="64Gi", pods="110").obj(),
    ]
    items += [
        make_pod(f"solo-{i:02d}").priority_class("low").priority(100).node("n").req(cpu="50m").obj()
        for i in range(60)
    ]
    snapshot = snapshot_create_from_objects(owner=owner, name="sixty", objects=items)
    params = {"cpu": "1", "memory": "1Gi", "limit": "10"}
    first = _text(owner_client.get(_page(snapshot), params).content.decode())
    assert first.count("<code>Pod default/solo-") == 50
    assert "Page 1 of 2" in first and "60 in all" in first
    # The pagination asks for the section again, not the findings.
    assert 'hx-target="#first-in-line"' in first
    second = _text(
        owner_client.get(
            _page(snapshot),
            {**params, "page": "2"},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="first-in-line",
        ).content.decode()
    )
    assert second.count("<code>Pod default/solo-") == 10


def _text(html: str) -> str:
    """The page without the wrapping hints of names (name_breaks): the text a reader sees."""
    return re.sub(r'<wbr>|<span class="nw">|</span>', "", html)


def _line(apps: list[AppInLine], limit: int = 50) -> FirstInLine:
    return FirstInLine(1000, GIB, limit, tuple(apps), (), ())


def _app(name: str, absorbed: int | None, reachable: bool = True) -> AppInLine:
    hit = FirstHit(absorbed + 1, "node-1", "default/x") if absorbed is not None else None
    return AppInLine(
        name, "default", 100, "low", 1, None, reachable, absorbed,
        None if absorbed is None else absorbed * 1000,
        None if absorbed is None else absorbed * GIB,
        hit,
    )  # fmt: skip


def test_the_picture_draws_thirty_apps_names_of_forty_characters_whole() -> None:
    forty = "Deployment team-a/" + "x" * 22
    sixty = "Deployment team-b/" + "y" * 42
    assert len(forty) == 40 and len(sixty) == 60
    apps = [_app(forty, 0), _app(sixty, 3), _app("Pod default/far", None)]
    apps += [_app(f"Pod default/p{i}", 10) for i in range(40)]
    apps.append(_app("DaemonSet kube-system/top", None, reachable=False))
    svg = str(first_in_line_svg(_line(apps)))
    assert svg.count("<g class=") == 30
    # Labelled "namespace/name" (the kind is in the tooltip): 29 characters, whole.
    assert f">team-a/{'x' * 22}</text>" in svg and f"<title>{forty} " in svg
    # "team-b/" and 42 more: past 44 characters the name loses its front, never the
    # namespace; whole in the tooltip.
    assert f"<title>{sixty} " in svg and f">team-b/{'y' * 42}</text>" not in svg
    assert f">team-b/…{'y' * 36}</text>" in svg
    # Beyond the limit: a full, hatched bar and its words.
    far = svg[svg.index('<g class="beyond">') :]
    assert 'width="460"' in far.split("</g>")[0] and "&gt; 50</text>" in far.split("</g>")[0]
    # 3 of 50 probes: 3/50 of the 460 px bar.
    mid = svg[svg.index(f"<title>{sixty} ") :].split("</g>")[0]
    assert 'class="bar" x="' in mid and f'width="{round(460 * 3 / 50, 1)}"' in mid


def test_the_ranking_is_kept_per_snapshot_size_and_limit(demo_snapshot: Any) -> None:
    def ask(limit: int) -> FirstInLineRanking:
        return first_in_line_request(
            snapshot=demo_snapshot, cpu_millis=1000, memory_bytes=2 * GIB, limit=limit
        )

    kept = ask(50)
    assert kept.is_done
    # The same question answers the row kept (no second run); another limit is another.
    again = ask(50)
    assert again.pk == kept.pk and again.attempts == kept.attempts == 1
    other = ask(20)
    assert other.pk != kept.pk
    line = ranking_line(other)
    assert line is not None and line.limit == 20
    # Read back from the database: the same answer the engine gave.
    assert ranking_line(kept) == ranking_line(ask(50))
    # Kept with the snapshot, and dropped with it.
    demo_snapshot.delete()
    assert not FirstInLineRanking.objects.exists()


def test_a_failed_ranking_says_why_and_is_ranked_again_when_asked(
    api: APIClient, demo_snapshot: Any
) -> None:
    url = _url(demo_snapshot)
    assert api.get(url).json()["first_in_line_status"] == "done"
    FirstInLineRanking.objects.update(
        status="failed", error="The analysis took longer than the worker's time limit."
    )
    r = api.get(url)
    # Failed: no ranking, the reason, and no new run from polling the same URL.
    assert r.status_code == 200
    body = r.json()
    assert body["first_in_line"] is None and body["first_in_line_status"] == "failed"
    assert "time limit" in body["first_in_line_error"]
    assert FirstInLineRanking.objects.get().status == "failed"
    # retry=1 ranks it again (here at once: the eager worker).
    again = api.get(url, {"retry": "1"})
    assert again.status_code == 200 and again.json()["first_in_line_status"] == "done"
    assert again.json()["first_in_line"][0]["app"] == "Deployment default/purple"
    # The URL to poll asks without retry: polling never queues it again and again.
    assert again.json()["first_in_line_url"] == url
    ranking = FirstInLineRanking.objects.get()
    assert ranking.attempts == 2 and ranking.error == ""


def test_the_snapshots_scheduler_configuration_reaches_the_plan(
    api: APIClient, demo_snapshot: Any
) -> None:
    """Without DefaultPreemption no probe evicts anything, and the audit says so."""
    r = api.put(
        f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/",
        {
            "scheduler_config": {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}},
                    }
                ],
            }
        },
        format="json",
    )
    assert r.status_code == 200, r.content
    body = api.get(
        _url(demo_snapshot), {"first_in_line": "1", "cpu": "1", "memory": "2Gi", "limit": "50"}
    ).json()
    assert [f["rule"] for f in body["findings"]].count("preemption-disabled") == 1
    assert all(app["first_hit"] is None for app in body["first_in_line"])
    # Back to the default profile: the same question reaches purple first again.
    api.delete(f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/")
    body = api.get(
        _url(demo_snapshot), {"first_in_line": "1", "cpu": "1", "memory": "2Gi", "limit": "50"}
    ).json()
    assert "preemption-disabled" not in [f["rule"] for f in body["findings"]]
    assert body["first_in_line"][0]["first_hit"]["node"] == "node-5"


@pytest.mark.parametrize(
    ("app", "label"),
    [
        ("Deployment shop/cart", "shop/cart"),
        # The brief's own: the namespace whole, the name's end from a word's edge.
        (
            "Deployment openshift-monitoring/cluster-monitoring-operator",
            "openshift-monitoring/…-monitoring-operator",
        ),
        # A namespace longer than the room left: 16 characters of the name's end, at least.
        (
            "Deployment openshift-cluster-node-tuning-operator/cluster-node-tuning-operator",
            "openshift-cluster-node-tuning-operator/…-tuning-operator",
        ),
        # No word's edge near the cut: it stays where it falls, 44 characters in all.
        ("Pod ns/" + "a" * 50, "ns/…" + "a" * 40),
    ],
)
def test_an_app_label_keeps_the_namespace_and_the_names_end(app: str, label: str) -> None:
    assert app_label(app) == label


def test_labels_that_would_read_the_same_keep_more_of_their_ends() -> None:
    a = "Deployment openshift-cluster-storage-operator/cluster-storage-operator"
    b = "Deployment openshift-cluster-storage-operator/csi-snapshot-controller-operator"
    c = "Deployment openshift-cluster-storage-operator/vsphere-problem-detector-operator"
    assert app_label(b, least=9) == app_label(c, least=9)
    labels = app_labels([a, b, c])
    assert len(set(labels.values())) == 3
    for app, label in labels.items():
        assert label.startswith("openshift-cluster-storage-operator/…")
        assert app.endswith(label.split("…")[1])
