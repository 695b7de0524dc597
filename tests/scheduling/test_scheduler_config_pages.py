"""Scheduler configurations on the pages: the what-if form's preset and configuration,
the result and share pages naming the profile and what it changed, the score table's
weights as configured, and "Edit and run again" keeping the configuration."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from clusters.demo import demo_cat3_pod
from scheduling import services
from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


def _small_pod_yaml() -> str:
    pod = demo_cat3_pod()
    pod["metadata"]["name"] = "web-0"
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m", "memory": "128Mi"}
    return yaml.safe_dump(pod)


def _text(html: str, element_id: str) -> str:
    """The words of the section of that id."""
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</section>', html, re.S)
    assert found, element_id
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1))).strip()


def test_the_form_runs_under_a_preset_and_the_pages_say_so(
    owner_client: Any, client: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "manifest",
            "manifest": _small_pod_yaml(),
            "action": "analyze",
            "scheduler_preset": "openshift-high-node-utilization",
        },
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    analysis = Analysis.objects.get()
    assert (analysis.scheduler_source, analysis.scheduler_preset) == (
        "analysis",
        "openshift-high-node-utilization",
    )
    services.analysis_run(analysis_id=analysis.pk)
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    profile = _text(page, "scheduler-profile")
    assert (
        "OpenShift HighNodeUtilization (openshift-high-node-utilization; given with the what-if)"
        in profile
    )
    assert "Against the default profile: " in profile and "web-0 goes to node-1" in profile
    # The score table: NodeResourcesFit at weight 5 here, BalancedAllocation gone.
    head = re.search(r'<table class="scores">\s*<thead>(.*?)</thead>', page, re.S)
    assert head is not None
    # A plugin's name may break between its words (<wbr>): its text is whole.
    headers = re.sub(r"<[^>]+>", " ", head.group(1).replace("<wbr>", ""))
    assert re.search(r"NodeResourcesFit\s+\u00d75", headers)  # the multiplication sign, then 5
    assert "NodeResourcesBalancedAllocation" not in headers
    assert "in OpenShift HighNodeUtilization" in page

    md = owner_client.get(f"/analyses/{analysis.pk}/export.md").content.decode()
    assert md.startswith(
        "**Scheduler profile:** OpenShift HighNodeUtilization (openshift-high-node-utilization; "
        "given with the what-if)\n**Against the default profile:** "
    )

    link = services.share_link_create(analysis=analysis)
    shared = client.get(link.get_absolute_url()).content.decode()
    assert _text(shared, "scheduler-profile") == profile

    # Edit and run again: the form starts from the same preset.
    form = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/?from={analysis.pk}"
    ).content.decode()
    assert re.search(r'<option value="openshift-high-node-utilization" selected>', form), (
        "the preset is chosen again"
    )


def test_a_bad_configuration_in_the_form_is_shown_and_nothing_is_stored(
    owner_client: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    bad = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
        "  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: Bogus}}\n"
    )
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": _small_pod_yaml(), "scheduler_config": bad},
    )
    assert r.status_code == 400
    body = r.content.decode().replace("&quot;", '"')
    assert (
        'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus"' in body
    )
    assert Analysis.objects.count() == 0


def test_under_the_default_profile_the_pages_are_as_before(
    owner_client: Any, demo_snapshot: Any, no_broker: Any
) -> None:
    analysis = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=demo_snapshot, pod=demo_cat3_pod()).pk
    )
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    assert 'id="scheduler-profile"' not in page
