"""Upload in the real browser (Debian's chromium through Playwright)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.clusters.builders import dump, make_node, make_pod, make_priority_class
from tests.conftest import browser_login


@pytest.mark.browser
def test_it_uploads_several_files_and_shows_the_snapshot_ready(
    live_server: Any, page: Any, owner: Any, tmp_path: Path
) -> None:
    (tmp_path / "nodes.json").write_bytes(dump([make_node("node-a"), make_node("node-b")]))
    (tmp_path / "pods.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop}\n"
        "spec: {nodeName: node-a, priorityClassName: gold, containers: [{name: c, image: i, resources: {requests: {cpu: 250m}}}]}\n"
        "status: {phase: Running}\n"
    )
    (tmp_path / "classes.json").write_bytes(dump([make_priority_class("gold", 5000, default=True)]))

    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/")
    page.click("text=Upload a snapshot")
    page.fill("#id_name", "from the browser")
    page.set_input_files(
        "#id_files", [str(tmp_path / n) for n in ("nodes.json", "pods.yaml", "classes.json")]
    )
    # The list is drawn by a deferred script: files picked before it ran are listed then.
    expect(page.locator("#file-list li")).to_have_count(3)
    page.click("#upload-submit")
    page.wait_for_selector("#snapshot-status")
    assert page.inner_text("#snapshot-status") == "ready"
    assert page.inner_text("h1") == "from the browser"
    assert "gold" in page.inner_text("#priority-classes")
    page.click("text=Pods (1)")
    assert "shop/web-1" in page.inner_text("#pods").replace("\n", "")


@pytest.mark.browser
def test_it_accepts_files_dropped_on_the_drop_zone(live_server: Any, page: Any, owner: Any) -> None:
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/new/")
    nodes = dump([make_node("node-z")]).decode()
    pods = dump([make_pod("web-9", node="node-z")]).decode()
    page.evaluate(
        """([nodes, pods]) => {
            const dt = new DataTransfer();
            dt.items.add(new File([nodes], "nodes.json", {type: "application/json"}));
            dt.items.add(new File([pods], "pods.json", {type: "application/json"}));
            const zone = document.getElementById("dropzone");
            zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
            zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""",
        [nodes, pods],
    )
    assert page.locator("#file-list li").count() == 2
    page.click("#upload-submit")
    page.wait_for_selector("#snapshot-status")
    assert page.inner_text("#snapshot-status") == "ready"
    assert page.inner_text("h1") == "nodes.json"


@pytest.mark.browser
def test_the_page_follows_a_worker_ingest_until_ready(
    live_server: Any, page: Any, owner: Any, monkeypatch: Any
) -> None:
    from clusters import services, tasks
    from tests.clusters.builders import small_cluster

    monkeypatch.setattr(tasks.snapshot_ingest_task, "delay", lambda pk: None)  # no broker here
    snapshot = services.snapshot_create(
        owner=owner,
        name="queued",
        files=[services.UploadedFile(name="a.json", data=dump(small_cluster()))],
        run_async=True,
    )
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/")
    assert page.inner_text("#snapshot-status") == "ingesting"
    services.snapshot_ingest(snapshot=snapshot)  # what the worker does
    page.wait_for_function(
        "() => document.getElementById('snapshot-status').textContent === 'ready'"
    )
    assert "Pods (4)" in page.inner_text(".tabs")


@pytest.mark.browser
def test_files_picked_before_the_upload_script_ran_are_listed(
    live_server: Any, page: Any, owner: Any, tmp_path: Path
) -> None:
    (tmp_path / "nodes.json").write_bytes(dump([make_node("node-a")]))
    (tmp_path / "pods.json").write_bytes(dump([make_pod("web-1", node="node-a")]))
    browser_login(page, live_server, "owner")
    held: list[Any] = []
    page.route("**/clusters-upload.js", lambda route: held.append(route))  # a slow network
    page.goto(f"{live_server.url}/snapshots/new/", wait_until="commit")
    page.wait_for_selector("#id_files", state="attached")
    page.set_input_files("#id_files", [str(tmp_path / "nodes.json"), str(tmp_path / "pods.json")])
    page.wait_for_timeout(200)
    assert held and page.locator("#file-list li").count() == 0
    held[0].continue_()
    expect(page.locator("#file-list li")).to_have_count(2)
