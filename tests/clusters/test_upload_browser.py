"""A refused upload in chromium, with and without JavaScript: the page names the files
of the try (none of them is stored) and the next try with the fixed file goes through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clusters.models import Snapshot
from tests.clusters.builders import dump, make_node, make_pod
from tests.conftest import browser_login

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("javascript", [True, False])
def test_files_chosen_before_an_error_are_named_for_the_next_try(
    live_server: Any, browser: Any, owner: Any, tmp_path: Path, javascript: bool
) -> None:
    (tmp_path / "nodes.json").write_bytes(dump([make_node("node-a")]))
    (tmp_path / "pods.json").write_bytes(dump([make_pod("a", memory="lots")]))
    (tmp_path / "fixed").mkdir()
    (tmp_path / "fixed" / "pods.json").write_bytes(dump([make_pod("a", node="node-a")]))
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        page.goto(f"{live_server.url}/snapshots/new/")
        page.fill("#id_name", "prod")
        page.set_input_files(
            "#id_files", [str(tmp_path / "nodes.json"), str(tmp_path / "pods.json")]
        )
        page.click("#upload-submit")
        page.wait_for_selector(".upload-error")
        assert "pods.json: items[0] Pod default/a" in page.inner_text(".upload-error")
        named = page.locator("#refused-files li")
        assert [t.split()[0] for t in named.all_inner_texts()] == ["nodes.json", "pods.json"]
        assert page.input_value("#id_name") == "prod"

        page.set_input_files(
            "#id_files", [str(tmp_path / "nodes.json"), str(tmp_path / "fixed" / "pods.json")]
        )
        page.click("#upload-submit")
        page.wait_for_selector("#snapshot-status")
        assert page.inner_text("#snapshot-status") == "ready"
        snapshot = Snapshot.objects.get(owner=owner, name="prod")
        assert (snapshot.node_count, snapshot.pod_count) == (1, 1)
    finally:
        context.close()
