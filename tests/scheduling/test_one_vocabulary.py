"""The CLI text report and the result page count the same nodes the same way, in the
same words, over every conformance scenario."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.template.loader import render_to_string

from scheduling.constants import CANDIDATES_PER_PAGE, AnalysisStatus
from scheduling.engine import analyze
from scheduling.models import Analysis
from scheduling.reports.text import render_text
from scheduling.views.contexts import result_context

VECTORS = sorted((Path(__file__).parents[1] / "conformance" / "vectors").glob("*.json"))

PAGE_GROUP = re.compile(
    r'<li class="group" data-count="(\d+)"[^>]*>\s*<details>\s*<summary><strong>[\d,]+ nodes?'
    r'</strong>: (.*?) — <span class="badge \w+">(.*?)</span></summary>',
    re.S,
)
TEXT_GROUP = re.compile(r"^  ([\d,]+) nodes?: (.*) \[(.*)\]: ", re.M)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_the_text_report_and_the_page_agree(path: Path) -> None:
    vector = json.loads(path.read_text())
    ex = analyze(vector["snapshot"], vector["preemptor"]).explanation
    analysis = Analysis(status=AnalysisStatus.DONE, pod=vector["preemptor"], pod_key=ex.pod)
    page = render_to_string(
        "scheduling/partials/body.html",
        {"analysis": analysis, "page_url": "/analyses/1/", "shared": True} | result_context(ex),
    )
    text = render_text(ex)

    page_groups = [
        (int(n), html.unescape(label), html.unescape(verdict))
        for n, label, verdict in PAGE_GROUP.findall(page)
    ]
    text_groups = [(_int(n), label, verdict) for n, label, verdict in TEXT_GROUP.findall(text)]
    assert page_groups == text_groups
    # Every node is counted once: the feasible ones, the nominated one, the groups.
    nominated = 1 if ex.outcome == "preempts" else 0
    assert sum(n for n, _, _ in text_groups) + len(ex.feasible_nodes) + nominated == ex.num_nodes

    m = re.search(r'id="rejected-count" data-count="(\d+)"', page)
    page_total = int(m.group(1)) if m else 0
    m = re.search(r"^([\d,]+) nodes?(?: other than \S+)? failed a filter:$", text, re.M)
    text_total = _int(m.group(1)) if m else 0
    assert page_total == text_total == sum(n for n, _, _ in text_groups)

    fit = f"{len(ex.feasible_nodes)} of {ex.num_nodes}"
    assert f"nodes that fit as they stand: {fit}" in page
    assert f"Nodes that fit as they stand: {fit}." in text
    # The headline and the reason are the same sentences.
    sentence = html.unescape(
        re.search(r'<p class="outcome \w+" id="outcome">(.*?)</p>', page).group(1)
    )
    why = html.unescape(re.search(r'<p class="why" id="why">(.*?)</p>', page, re.S).group(1))
    assert text.splitlines()[0].endswith(sentence)
    assert text.splitlines()[1] == why
    # The tie-break: the same criteria, named by the engine (the page's first page of it).
    for c in ex.candidates[:CANDIDATES_PER_PAGE]:
        if c.eliminated_by is not None and c.eliminated_by != "tie":
            assert (
                f"out at {c.eliminated_by.label}" in page
                and f"out at {c.eliminated_by.label}" in text
            )
