"""The pods page at scale: name search, node by substring, sorts, jump to a page, and
links that keep every other filter."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clusters import services
from tests.clusters.builders import dump, make_node, make_pod, make_priority_class

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(owner: Any) -> Any:
    """120 pods over node-1, node-2 and node-10, in two namespaces and two classes,
    each started a minute after the one before."""
    objects: list[dict[str, Any]] = [
        make_node("node-1"),
        make_node("node-2"),
        make_node("node-10"),
        make_priority_class("high", 1000),
        make_priority_class("low", 10),
    ]
    for i in range(120):
        pod = make_pod(
            f"app-{i:03d}" if i % 2 else f"web-{i:03d}",
            namespace="shop" if i % 3 else "ops",
            node=("node-1", "node-2", "node-10")[i % 3],
            priority_class="high" if i % 4 == 0 else "low",
            cpu="1m",
            memory="1Mi",
        )
        pod["status"]["startTime"] = f"2025-01-06T{10 + i // 60:02d}:{i % 60:02d}:00Z"
        objects.append(pod)
    return services.snapshot_create(
        owner=owner, name="many", files=[services.UploadedFile(name="m.json", data=dump(objects))]
    )


def _names(body: str) -> list[str]:
    return re.findall(r"/</span><strong>([^<]+)</strong>", body)


def test_name_contains(owner_client: Any, many: Any) -> None:
    body = owner_client.get(f"/snapshots/{many.pk}/pods/", {"q": "WEB-00"}).content.decode()
    assert sorted(_names(body)) == ["web-000", "web-002", "web-004", "web-006", "web-008"]
    assert 'value="WEB-00"' in body


def test_a_node_name_filters_exactly_and_a_part_of_one_by_substring(
    owner_client: Any, many: Any
) -> None:
    url = f"/snapshots/{many.pk}/pods/"
    exact = owner_client.get(url, {"node": "node-1"}).content.decode()
    assert "40 in all" in exact
    assert "node-10" not in exact.split('id="pods"')[1]
    part = owner_client.get(url, {"node": "ode-1"}).content.decode()
    assert "80 in all" in part  # node-1 and node-10
    prefix = owner_client.get(url, {"node": "ode-"}).content.decode()
    assert "120 in all" in prefix


@pytest.mark.parametrize(
    ("sort", "first"),
    [
        ("-priority", "web-000"),  # high (1000) first, then namespace/name
        ("priority", "app-003"),  # low, ops first
        ("-start", "app-119"),
        ("start", "web-000"),
        ("node", "app-003"),  # node-1 (all in ops)
    ],
)
def test_sorts(owner_client: Any, many: Any, sort: str, first: str) -> None:
    body = owner_client.get(f"/snapshots/{many.pk}/pods/", {"sort": sort}).content.decode()
    assert _names(body)[0] == first
    assert f'<option value="{sort}" selected>' in body


def test_jump_to_a_page_keeps_the_filters(owner_client: Any, many: Any) -> None:
    body = owner_client.get(
        f"/snapshots/{many.pk}/pods/", {"sort": "start", "page": "3"}
    ).content.decode()
    assert "Page 3 of 3" in body
    assert _names(body)[0] == "web-100"
    jump = body.split('class="jump"')[1].split("</form>")[0]
    assert '<input type="hidden" name="sort" value="start">' in jump
    assert 'name="page"' in jump and 'max="3"' in jump


def test_a_node_link_keeps_the_other_filters_and_resets_the_page(
    owner_client: Any, many: Any
) -> None:
    body = owner_client.get(
        f"/snapshots/{many.pk}/pods/", {"namespace": "shop", "sort": "-priority", "page": "2"}
    ).content.decode()
    assert 'href="?namespace=shop&amp;node=node-2&amp;sort=-priority"' in body


def test_clear_shows_only_when_the_list_is_filtered_or_sorted(owner_client: Any, many: Any) -> None:
    url = f"/snapshots/{many.pk}/pods/"
    assert 'id="pods-clear"' not in owner_client.get(url).content.decode()
    assert 'id="pods-clear"' in owner_client.get(url, {"sort": "node"}).content.decode()
    assert 'id="pods-clear"' in owner_client.get(url, {"q": "web"}).content.decode()


def test_htmx_gets_the_clean_url_to_push(owner_client: Any, many: Any) -> None:
    url = f"/snapshots/{many.pk}/pods/"
    response = owner_client.get(
        url,
        {"q": "", "namespace": "ops", "node": "", "priority_class": "", "phase": "", "sort": ""},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="pods-panel",
    )
    assert response["HX-Push-Url"] == f"{url}?namespace=ops"


def test_the_nodes_filter_swaps_with_its_table(owner_client: Any, many: Any) -> None:
    response = owner_client.get(
        f"/snapshots/{many.pk}/nodes/",
        {"q": "node-1"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="nodes-panel",
    )
    body = response.content.decode()
    assert "<html" not in body and '<div id="nodes-panel">' in body
    assert 'id="node-q" name="q" value="node-1"' in body
    assert "2 in all" in body  # node-1 and node-10
