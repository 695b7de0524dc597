"""An analysis that finishes while its page is open ends as a reloaded page shows it:
the result, and every control a finished analysis has (the files, "Compare with…").
Chromium follows three queued analyses of the real ocp-aws dump (a pod, a workload, a
capacity question) until a real worker finishes them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from scheduling import services
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment
from tests.conftest import browser_login
from tests.realworld import demote_workers, import_dump, pending_pod, real_dump

pytestmark = [pytest.mark.browser, pytest.mark.worker]


# Every control of the "Again, elsewhere, or as a file" card, as a reader sees it.
CONTROLS = """() => [...document.querySelectorAll("#actions a, #actions button, #actions select")]
  .filter(e => e.offsetParent !== null)
  .map(e => e.id + " | " + (e.tagName === "SELECT" ? e.options.length + " options" : e.textContent.trim()))"""


def _wait_done(ids: list[int], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while Analysis.objects.filter(pk__in=ids, status__in=("queued", "running")).exists():
        assert time.monotonic() < deadline, "the worker did not finish the analyses"
        time.sleep(0.2)


def test_a_finish_followed_live_shows_every_control_a_reload_shows(
    live_server: Any, browser: Any, celery_worker_factory: Any, owner: Any, tmp_path: Path
) -> None:
    snapshot = import_dump(owner, "ocp-aws", demote_workers(real_dump("ocp-aws")))
    # An answer done before: what "Compare with…" offers the three.
    earlier = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=snapshot, pod=pending_pod("earlier", "1")).pk
    )
    assert earlier.is_done, earlier.error
    # Queued with no message sent: the pages open on "Queued" before any worker runs them.
    with mock.patch("scheduling.services.common.analysis_publish"):
        queued = {
            "pod": services.analysis_create(snapshot=snapshot, pod=pending_pod("big", "3")),
            "workload": services.analysis_create_workload(
                snapshot=snapshot,
                objects=[
                    make_deployment("rollout", pending_pod("rollout", "1500m")["spec"], replicas=6)
                ],
            ),
            "capacity": services.analysis_create_capacity(
                snapshot=snapshot, pod=pending_pod("room", "1500m"), limit=20
            ),
        }
    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    try:
        first = context.new_page()
        browser_login(first, live_server, "owner")
        pages = {}
        for kind, analysis in queued.items():
            page = first if not pages else context.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{live_server.url}{analysis.get_absolute_url()}")
            assert page.locator("#analysis-body").get_attribute("data-status") == "queued"
            assert page.locator("#export-json").count() == 0, kind
            pages[kind] = page

        celery_worker_factory()
        for analysis in queued.values():
            services.analysis_publish(analysis.pk)
        _wait_done([a.pk for a in queued.values()], 120)

        for kind, page in pages.items():
            analysis = Analysis.objects.get(pk=queued[kind].pk)
            assert analysis.is_done, analysis.error
            page.locator("#analysis-body[data-status=done]").wait_for()
            page.locator("#outcome").wait_for()
            assert page.locator("#analysis-body").get_attribute("hx-trigger") is None
            live_text = page.inner_text("main")
            live_controls = page.evaluate(CONTROLS)

            # The controls a finished analysis has, there without a reload, and working:
            # the files are the stored answer, the comparison opens.
            assert page.locator("#export-json").is_visible(), kind
            with page.expect_download() as download:
                page.click("#export-json")
            path = tmp_path / f"{kind}.json"
            download.value.save_as(path)
            assert json.loads(path.read_text()) == analysis.result, kind
            if kind == "capacity":
                # A capacity answer is exported as JSON only and is not compared.
                assert page.locator("#export-md").count() == 0
                assert page.locator("#compare-with").count() == 0
            else:
                assert page.locator("#export-md").is_visible(), kind
                assert page.locator("#compare-with").is_visible(), kind
                with page.expect_download() as download:
                    page.click("#export-md")
                path = tmp_path / f"{kind}.md"
                download.value.save_as(path)
                assert f"on snapshot {snapshot.pk} “ocp-aws”" in path.read_text(), kind
                page.select_option("#compare-b", str(earlier.pk))
                page.click("#compare-with button[type=submit]")
                page.wait_for_url(f"**/analyses/compare/?a={analysis.pk}&b={earlier.pk}")
                assert page.locator("#comparison #sentence").is_visible(), kind

            # The page followed live read as the same page loaded anew.
            page.goto(f"{live_server.url}{analysis.get_absolute_url()}")
            assert page.inner_text("main") == live_text, kind
            assert page.evaluate(CONTROLS) == live_controls, kind
    finally:
        context.close()
