from __future__ import annotations

import re
from typing import Any

from clusters import models, services
from tests.clusters.builders import dump, make_node, make_pod, small_cluster


def test_the_list_shows_status_and_counts(owner_client: Any, snapshot: Any) -> None:
    body = owner_client.get("/snapshots/").content.decode()
    assert f'href="/snapshots/{snapshot.pk}/"' in body
    assert '<span class="badge ok">ready</span>' in body


def test_the_overview_prints_priorityclasses_like_kubectl(owner_client: Any, demo: Any) -> None:
    body = owner_client.get(f"/snapshots/{demo.pk}/").content.decode()
    assert (
        '<th>NAME</th><th class="num">VALUE</th><th>GLOBAL-DEFAULT</th><th>PREEMPTION-POLICY</th><th>AGE</th>'
        in body
    )
    cat1 = body[body.index(">cat-1<") :][:400]
    assert (
        '<td class="num">10000</td>' in cat1
        and "<td>true</td>" in cat1
        and "PreemptLowerPriority" in cat1
    )
    # kubectl's AGE when the snapshot was taken: the demo's classes were created two hours
    # before its pods last started, whatever today is.
    assert re.search(r">(\d+m|\dh(\d+m)?)</time></td>", cat1), cat1


def test_the_overview_shows_admission_warnings(owner_client: Any, owner: Any) -> None:
    data = dump(
        [
            {
                "kind": "PriorityClass",
                "apiVersion": "scheduling.k8s.io/v1",
                "metadata": {"name": "too-high"},
                "value": 1_500_000_000,
            },
            make_node(),
        ]
    )
    s = services.snapshot_create(
        owner=owner, name="w", files=[services.UploadedFile(name="pc.json", data=data)]
    )
    body = owner_client.get(f"/snapshots/{s.pk}/").content.decode()
    assert "no globalDefault PriorityClass" not in body  # no pod needs one
    assert "too-high has value 1500000000, above the user maximum" in body


def test_the_nodes_page_shows_requests_and_a_chart(owner_client: Any, demo: Any) -> None:
    body = owner_client.get(f"/snapshots/{demo.pk}/nodes/").content.decode()
    assert "3.2 / 3.5" in body or "3200m / 3500m" in body
    assert body.count('<svg class="node-bars"') == 5
    # Segments for each priority band present on node-1: system, cat-2, cat-1...
    assert 'class="band-' in body and "cat-1 (10000)" in body


def test_the_pods_page_filters_and_paginates(owner_client: Any, demo: Any) -> None:
    url = f"/snapshots/{demo.pk}/pods/"
    body = owner_client.get(url, {"priority_class": "cat-2"}).content.decode()
    assert body.count("<tr>") - 1 == 6  # Green and Red, 3 replicas each
    body = owner_client.get(url, {"namespace": "kube-system", "node": "node-1"}).content.decode()
    assert "kube-proxy-" in body and "coredns-" in body and "blue-" not in body
    assert '<option value="kube-system" selected>' in body


def test_the_pods_panel_is_a_fragment_for_htmx(owner_client: Any, demo: Any) -> None:
    url = f"/snapshots/{demo.pk}/pods/"
    response = owner_client.get(
        url, {"phase": "Running"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="pods-panel"
    )
    body = response.content.decode()
    assert body.lstrip().startswith("{#") is False
    assert '<div id="pods-panel">' in body and 'id="pods-filter"' in body
    assert "<html" not in body


def test_every_htmx_link_has_an_href(owner_client: Any, owner: Any) -> None:
    data = dump(
        [
            *small_cluster(),
            *[
                p
                for i in range(60)
                for p in [
                    {**small_cluster()[4], "metadata": {"name": f"x-{i}", "namespace": "default"}}
                ]
            ],
        ]
    )
    s = services.snapshot_create(
        owner=owner, name="many", files=[services.UploadedFile(name="a.json", data=data)]
    )
    body = owner_client.get(f"/snapshots/{s.pk}/pods/").content.decode()
    assert "hx-get" in body
    for chunk in body.split("<a ")[1:]:
        tag = chunk.split(">", 1)[0]
        if "hx-get" in tag:
            assert "href=" in tag, tag


def test_the_pdbs_page_shows_selector_and_matched_pods(owner_client: Any, demo: Any) -> None:
    body = owner_client.get(f"/snapshots/{demo.pk}/pdbs/").content.decode()
    assert "<code>app=blue</code>" in body
    blue = body[body.index("blue-pdb") :][:1200]
    assert "4 pods" in blue and '<span class="badge ok">1</span>' in blue


def test_an_ingesting_snapshot_polls_until_ready(owner_client: Any, owner: Any) -> None:
    s = services.snapshot_create(
        owner=owner,
        name="q",
        files=[services.UploadedFile(name="a.json", data=dump(small_cluster()))],
        run_async=True,
    )
    body = owner_client.get(f"/snapshots/{s.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in body and "ingesting" in body
    poll = owner_client.get(
        f"/snapshots/{s.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="snapshot-body"
    )
    assert poll.status_code == 200 and "every 1s" in poll.content.decode()
    services.snapshot_ingest(snapshot=s)
    done = owner_client.get(
        f"/snapshots/{s.pk}/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="snapshot-body"
    )
    assert done.status_code == 286  # htmx stops polling
    assert "every 1s" not in done.content.decode() and "ready" in done.content.decode()


def test_a_failed_snapshot_shows_its_error(owner_client: Any, owner: Any) -> None:
    s = services.snapshot_create(
        owner=owner,
        name="q",
        files=[services.UploadedFile(name="bad.json", data=b"{")],
        run_async=True,
    )
    services.snapshot_ingest(snapshot=s)
    body = owner_client.get(f"/snapshots/{s.pk}/").content.decode()
    assert "failed" in body and "bad.json" in body and "Nothing was stored" in body


def test_delete_works_as_a_plain_post(owner_client: Any, snapshot: Any) -> None:
    response = owner_client.post(f"/snapshots/{snapshot.pk}/delete/")
    assert response.status_code == 302 and response["Location"] == "/snapshots/"
    assert not models.Snapshot.objects.exists()


def test_delete_over_htmx_redirects(owner_client: Any, snapshot: Any) -> None:
    response = owner_client.post(f"/snapshots/{snapshot.pk}/delete/", HTTP_HX_REQUEST="true")
    assert response.status_code == 204 and response["HX-Redirect"] == "/snapshots/"


def test_the_nodes_page_leaves_out_resources_a_node_has_none_of(
    owner: Any, owner_client: Any
) -> None:
    node = make_node("ip-10-0-195-177.ec2.internal")
    node["status"]["allocatable"].update(
        {"hugepages-1Gi": "0", "hugepages-2Mi": "0", "nvidia.com/gpu": "2", "example.com/fpga": "0"}
    )
    pod = make_pod("trainer", node="ip-10-0-195-177.ec2.internal")
    pod["spec"]["containers"][0]["resources"]["requests"]["example.com/fpga"] = "1"
    s = services.snapshot_create(
        owner=owner, name="r", files=[services.UploadedFile(name="s.json", data=dump([node, pod]))]
    )
    body = owner_client.get(f"/snapshots/{s.pk}/nodes/").content.decode()
    assert "hugepages" not in body
    assert "nvidia.com/gpu: 0 / 2" in body
    # Asked for by a pod although the node has none: that stays in view.
    assert "example.com/fpga: 1 / 0" in body
    assert '<span class="nw">ip-10-0-195-177.</span><wbr>' in body
