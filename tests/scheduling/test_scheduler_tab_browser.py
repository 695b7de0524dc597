"""The snapshot's Scheduler tab in a real browser at 1366 px on both real clusters' dumps,
under each preset: nothing wider than the window, each profile's plugins listed; and the
form sets a preset, then goes back to the default."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from clusters import services as cluster_services
from scheduling.engine.plan.rules.profiles import configured
from scheduling.scheduler_config import SchedulerChoice, presets, snapshot_scheduler_set
from scheduling.scheduler_config.presenter import profile_view
from tests.conftest import browser_login

pytestmark = pytest.mark.browser

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "realworld"
WIDTH, HEIGHT = 1366, 900


def _real(owner: Any, cluster: str) -> Any:
    return cluster_services.snapshot_create(
        owner=owner,
        name=cluster,
        files=[
            cluster_services.UploadedFile(
                name="snapshot.json",
                data=gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes()),
            )
        ],
        run_async=False,
    )


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_the_scheduler_tab_fits_1366_pixels_under_each_preset(
    live_server: Any, browser: Any, owner: Any, cluster: str
) -> None:
    snapshot = _real(owner, cluster)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    try:
        browser_login(page, live_server, "owner")
        for name in presets():
            snapshot_scheduler_set(
                snapshot=snapshot, choice=SchedulerChoice(None, "snapshot", name)
            )
            page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/scheduler/")
            scroll, client = page.evaluate(
                "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert scroll <= client, (name, scroll, client)
            assert presets()[name].title in page.inner_text("#scheduler-origin")
            for profile in configured(presets()[name].config).profiles:
                shown = page.locator(f'section[data-profile="{profile.scheduler_name}"]')
                listed = shown.locator(".plugin code").all_inner_texts()
                expected = [n for row in profile_view(profile).points for n, _ in row.plugins]
                assert listed == expected, name
                assert "PrioritySort" in listed and "DefaultBinder" in listed
            args = page.locator(".scheduler-args").all_inner_texts()
            if name in ("openshift-high-node-utilization", "most-allocated"):
                # As a configuration file writes it (JSON), not as Python prints a dict.
                assert 'scoringStrategy: {"type": "MostAllocated"' in " ".join(args), args
    finally:
        context.close()


def test_the_form_sets_a_preset_and_clears_it(live_server: Any, page: Any, owner: Any) -> None:
    snapshot = cluster_services.snapshot_load_demo(owner=owner)
    browser_login(page, live_server, "owner")
    page.goto(f"{live_server.url}/snapshots/{snapshot.pk}/")
    page.click("#scheduler-tab")
    assert "default profile" in page.inner_text("#scheduler-origin")
    page.select_option("#id_scheduler_preset", "openshift-no-scoring")
    page.click("#scheduler-save")
    assert "OpenShift NoScoring" in page.inner_text("#scheduler-origin")
    # NoScoring: nothing at Score.
    score_row = page.locator("tr", has=page.locator("th code", has_text="score")).first
    assert "none" in score_row.inner_text()
    snapshot.refresh_from_db()
    assert snapshot.scheduler_preset == "openshift-no-scoring"

    page.fill("#id_scheduler_config", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n")
    page.select_option("#id_scheduler_preset", "")
    page.click("#scheduler-save")
    assert 'no kind "Pod" is registered' in page.inner_text("#scheduler-form")
    snapshot.refresh_from_db()
    assert snapshot.scheduler_preset == "openshift-no-scoring"  # nothing changed

    page.click("text=Back to the default profile")
    assert "default profile" in page.inner_text("#scheduler-origin")
    snapshot.refresh_from_db()
    assert (snapshot.scheduler_preset, snapshot.scheduler_config) == ("", None)
