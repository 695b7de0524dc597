"""The short form says every mistake at once in plain words with how to fix it; the
tabs keep what each holds; an example to start from."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from scheduling.models import Analysis

pytestmark = pytest.mark.django_db


def _errors(body: str) -> dict[str, str]:
    found = re.findall(r'<ul class="errorlist" id="id_(\w+)-errors">(.*?)</ul>', body, re.S)
    return {f: html.unescape(re.sub(r"<[^>]+>", "", e)).strip() for f, e in found}


def test_every_mistake_is_listed_at_once_with_a_hint(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "form",
            "name": "Web_1",
            "namespace": "default",
            "priority_class": "cat-1",
            "priority": "5",
            "cpu": "two",
            "memory": "4GB",
            "gpu": "0.5",
        },
    )
    assert r.status_code == 400
    body = r.content.decode()
    errors = _errors(body)
    assert errors == {
        "name": "“Web_1” cannot be a pod name: use lower-case letters, digits, '-' and '.', "
        "starting and ending with a letter or digit (e.g. web-1).",
        "priority": "Choose a class or a raw priority, not both: empty this box to use the class.",
        "cpu": "“two” is not an amount of CPU Kubernetes can read. "
        "Write cores or millicores: 2, 0.5 or 500m.",
        "memory": "“4GB” is not an amount of memory Kubernetes can read. Write a number and a "
        "unit: 512Mi or 4Gi (powers of 1024), 500M or 4G (powers of 1000).",
        "gpu": "GPUs come whole: “0.5” is a fraction. Write a whole number of GPUs: 1, 2, 4.",
    }
    assert "5 things to fix below." in body
    assert "spec.containers" not in body


def test_a_short_form_error_keeps_the_pasted_manifest(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "form",
            "name": "w",
            "namespace": "default",
            "cpu": "lots",
            "manifest": "kind: Pod # mine",
        },
    )
    body = r.content.decode()
    assert "kind: Pod # mine</textarea>" in body
    assert 'value="form" id="mode-form" class="tab-radio" checked' in body


def test_the_example_starts_a_what_if_that_runs(owner_client: Any, demo_snapshot: Any) -> None:
    url = f"/snapshots/{demo_snapshot.pk}/analyses/new/"
    page = owner_client.get(url).content.decode()
    assert 'href="?mode=manifest&amp;example=1"' in page
    body = owner_client.get(url, {"example": "1"}).content.decode()
    manifest = html.unescape(
        re.search(r'<textarea name="manifest"[^>]*>(.*?)</textarea>', body, re.S)[1]
    )
    assert "priorityClassName: cat-3" in manifest  # the class no pod runs with yet
    r = owner_client.post(url, {"mode": "manifest", "manifest": manifest})
    assert r.status_code == 302
    assert Analysis.objects.get().pod_key == "default/example"
    form = owner_client.get(url, {"example": "1", "mode": "form"}).content.decode()
    assert 'name="cpu" value="1"' in form and '<option value="cat-3" selected>' in form


def test_a_manifest_that_is_not_a_kubernetes_object_says_so(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": "hello: world"},
    )
    said = _errors(r.content.decode())["manifest"]
    assert "has no kind" in said and "Pod" in said
    assert "items[0]" not in said
